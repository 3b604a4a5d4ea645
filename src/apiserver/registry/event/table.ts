/**
 * The events' Table columns, as upstream's printEvent: LAST SEEN, TYPE,
 * REASON, OBJECT, MESSAGE, with wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME.
 */
import type { Event, KubeObject } from '../../../api/index.js';
import {
  column,
  docs,
  int,
  nameColumn,
  parseTime,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

/** Like upstream's formatEventSource: "component, host", falling back to the reporting fields. */
function formatEventSource(e: Event): string {
  const component = e.source?.component || str(e.reportingComponent);
  const instance = e.source?.host || str(e.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

function printEvent(obj: KubeObject, now: number): PrintedRow {
  const e = obj as Event;
  // Events from the events.k8s.io API carry eventTime and series instead of the core timestamps.
  const first =
    parseTime(e.firstTimestamp) !== undefined
      ? timestampSince(e.firstTimestamp, now)
      : timestampSince(e.eventTime, now);
  let last = parseTime(e.lastTimestamp) !== undefined ? timestampSince(e.lastTimestamp, now) : first;
  let count = int(e.count);
  if (e.series) {
    last = timestampSince(e.series.lastObservedTime, now);
    count = int(e.series.count);
  } else if (count === 0) {
    count = 1;
  }
  const kind = str(e.involvedObject?.kind).toLowerCase();
  const target = e.involvedObject?.name ? `${kind}/${e.involvedObject.name}` : kind;
  return {
    cells: [
      last,
      str(e.type),
      str(e.reason),
      target,
      str(e.involvedObject?.fieldPath),
      formatEventSource(e),
      str(e.message).trim(),
      first,
      count,
      str(e.metadata?.name),
    ],
  };
}

/** Events: LAST SEEN TYPE REASON OBJECT MESSAGE, wide SUBOBJECT SOURCE FIRST SEEN COUNT NAME. */
export const eventTable: ResourcePrinter = {
  columns: [
    column('Last Seen', 'string', docs.eventLastTimestamp),
    column('Type', 'string', docs.eventType),
    column('Reason', 'string', docs.eventReason),
    column('Object', 'string', docs.eventInvolvedObject),
    column('Subobject', 'string', docs.objectReferenceFieldPath, { wide: true }),
    column('Source', 'string', docs.eventSource, { wide: true }),
    column('Message', 'string', docs.eventMessage),
    column('First Seen', 'string', docs.eventFirstTimestamp, { wide: true }),
    column('Count', 'string', docs.eventCount, { wide: true }),
    nameColumn({ wide: true }),
  ],
  print: printEvent,
};
