/**
 * The DaemonSets' Table columns, as upstream's printDaemonSet: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE
 * NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR.
 */
import type { DaemonSet, KubeObject } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  formatLabels,
  int,
  nameColumn,
  str,
  templateCells,
  templateColumns,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

function printDaemonSet(obj: KubeObject, now: number): PrintedRow {
  const ds = obj as DaemonSet;
  const s = ds.status ?? {};
  return {
    cells: [
      str(ds.metadata?.name),
      int(s.desiredNumberScheduled),
      int(s.currentNumberScheduled),
      int(s.numberReady),
      int(s.updatedNumberScheduled),
      int(s.numberAvailable),
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      timestampSince(ds.metadata?.creationTimestamp, now),
      ...templateCells(ds.spec),
    ],
  };
}

/** DaemonSets: NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE, wide CONTAINERS IMAGES SELECTOR. */
export const daemonSetTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', docs.daemonSetStatusDesiredNumberScheduled),
    column('Current', 'integer', docs.daemonSetStatusCurrentNumberScheduled),
    column('Ready', 'integer', docs.daemonSetStatusNumberReady),
    column('Up-to-date', 'integer', docs.daemonSetStatusUpdatedNumberScheduled),
    column('Available', 'integer', docs.daemonSetStatusNumberAvailable),
    column('Node Selector', 'string', docs.podSpecNodeSelector),
    ageColumn(),
    ...templateColumns(docs.daemonSetSpecSelector),
  ],
  print: printDaemonSet,
};
