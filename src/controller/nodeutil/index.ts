/** Shared node-controller helpers, like pkg/controller/util/node and pkg/util/taints; toleration matching is api's. */
export { deepCopy } from './deep_copy.js';
export * from './taints.js';
export { getCondition, updateCondition, type Condition } from './conditions.js';
export { swapNodeControllerTaint, markPodsNotReady } from './controller_utils.js';
