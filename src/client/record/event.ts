/** The core/v1 Event an EventRecorder writes, and how it is built from an object. */
import { formatTimestamp, type Event, type KubeObject, type ObjectReference } from '../../api/index.js';

/** Event types, as in corev1.EventTypeNormal / EventTypeWarning. */
export type EventType = 'Normal' | 'Warning';

/**
 * A core/v1 Event as the recorder writes it: the api type with every field the
 * recorder sets made present, so the correlator can count and compare them.
 */
export type CoreEvent = Event &
  Required<Pick<Event, 'reason' | 'message' | 'source' | 'count'>> & {
    metadata: { name: string; namespace: string; resourceVersion?: string };
    firstTimestamp: string;
    lastTimestamp: string;
    type: EventType;
  };

/** The reference to `obj`; its kind/apiVersion come from the object, or from `kind` when the object lacks them. */
export function referenceTo(obj: KubeObject, kind?: { apiVersion: string; kind: string }): ObjectReference {
  const m = obj.metadata ?? {};
  const ref: ObjectReference = { kind: obj.kind ?? kind?.kind ?? '', name: m.name ?? '' };
  const apiVersion = obj.apiVersion ?? kind?.apiVersion;
  if (apiVersion !== undefined) ref.apiVersion = apiVersion;
  if (m.namespace !== undefined && m.namespace !== '') ref.namespace = m.namespace;
  if (m.uid !== undefined) ref.uid = m.uid;
  if (m.resourceVersion !== undefined) ref.resourceVersion = m.resourceVersion;
  return ref;
}

/** Builds an Event named like client-go's: `<object name>.<unix nanoseconds in hex>`. */
export function makeEvent(
  ref: ObjectReference,
  type: EventType,
  reason: string,
  message: string,
  source: { component: string; host?: string },
  nowMs: number,
  seq: number,
): CoreEvent {
  // Nanoseconds from a millisecond clock plus a per-recorder sequence keeps names unique within a millisecond.
  const nanos = BigInt(nowMs) * 1_000_000n + BigInt(seq % 1_000_000);
  const ts = formatTimestamp(nowMs);
  const ev: CoreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${ref.name}.${nanos.toString(16)}`, namespace: ref.namespace ?? 'default' },
    involvedObject: ref,
    reason,
    message,
    source: { ...source },
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
    type,
    reportingComponent: source.component,
    reportingInstance: source.host ?? '',
  };
  return ev;
}
