/**
 * Helpers the workload controllers share, like upstream's
 * pkg/controller/controller_utils.go and controller_ref_manager.go:
 * expectations, controller references and adoption, pod readiness.
 */
export * from './kinds.js';
export {
  ControllerExpectations,
  UIDTrackingControllerExpectations,
  EXPECTATIONS_TIMEOUT_MS,
  type ControlleeExpectations,
} from './expectations.js';
export {
  ControllerRefManager,
  getControllerOf,
  newControllerRef,
  resolveControllerRef,
} from './controller_ref_manager.js';
export {
  isPodReady,
  podReadyTime,
  isPodAvailable,
  isPodTerminal,
  isPodActive,
  filterActivePods,
  compareForDeletion,
} from './pod_util.js';
export {
  CONTROLLER_UID_INDEX,
  controllerUIDIndexFunc,
  ensureControllerUIDIndex,
  ownedAndOrphans,
} from './controller_index.js';
export { slowStartBatch } from './slow_start.js';
export { enqueueOnChange } from './enqueue.js';
export { canonical, computeHash, dropNullish } from './hash.js';
export { selectorOrNothing } from './selector.js';
export { updateStatusIfChanged } from './update_status.js';
export { PerNamespaceObjectController, type EnsureFn } from './per_namespace.js';
export { QueueController, type QueueWorkerOptions } from './queue_controller.js';
export { PodExpectationsController, PodOwnerController } from './pod_owner_controller.js';
export { errMessage, nameOf } from './messages.js';
