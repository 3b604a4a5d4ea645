/** Shared node-controller helpers, like pkg/controller/util/node, pkg/util/taints and v1helper's toleration matching. */
export * from './types.js';
export * from './taints.js';
export { getCondition, updateCondition } from './conditions.js';
export { swapNodeControllerTaint, markPodsNotReady } from './controller_utils.js';
