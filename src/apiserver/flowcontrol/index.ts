/**
 * API Priority and Fairness (upstream's util/flowcontrol): the bootstrap
 * configuration and its ensurer, classification, fair queuing, the work
 * estimator, the controller that ties them together, and its debug dumps.
 */
export {
  AUTOUPDATE_ANNOTATION,
  isMandatory,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from './bootstrap.js';
export { APFController, type Admitted, type APFControllerOptions, type Classification } from './controller.js';
export { dumpPriorityLevels, dumpQueues } from './debug.js';
export { ensureBootstrapConfiguration, restoreMandatory, type FlowControlStores } from './ensurer.js';
export { FlowControlMetrics } from './metrics.js';
export type { ResourceStats } from './work_estimator.js';
