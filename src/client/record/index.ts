/** Event recording, like client-go's tools/record: EventBroadcaster, EventRecorder and the event correlator. */
export {
  EventBroadcaster,
  type EventRecorder,
  type EventBroadcasterOptions,
  type EventBroadcasterStats,
} from './event_broadcaster.js';
export { EventCorrelator, COMBINED_PREFIX, type CorrelatorOptions, type CorrelationResult } from './events_cache.js';
export { referenceTo, type CoreEvent, type EventType } from './event.js';
