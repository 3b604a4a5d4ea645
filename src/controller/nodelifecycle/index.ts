/** The node lifecycle controller: node health, NoSchedule/NoExecute taints and zone disruption states. */
export {
  NodeLifecycleController,
  NODE_LIFECYCLE_CONTROLLER,
  POD_NODE_NAME_INDEX,
  LABEL_EXCLUDE_DISRUPTION,
  podNodeNameIndex,
} from './node_lifecycle_controller.js';
export {
  DEFAULT_NODE_LIFECYCLE_OPTIONS,
  NODE_EVICTION_PERIOD_MS,
  type NodeLifecycleControllerOptions,
} from './config.js';
export {
  RateLimitedTimedQueue,
  EVICTION_RATE_LIMITER_BURST,
  type TimedValue,
  type ActionFunc,
} from './rate_limited_queue.js';
export { computeZoneState, getZoneKey, zoneEvictionRate, zoneName, type ZoneState } from './zone.js';
export { NoExecuteTainter } from './no_execute_tainter.js';
