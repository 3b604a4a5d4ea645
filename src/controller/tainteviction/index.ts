/** The taint eviction controller: deletes pods from NoExecute-tainted nodes per their tolerations. */
export { TaintEvictionController, TAINT_EVICTION_CONTROLLER } from './taint_eviction_controller.js';
export { TimedWorkerQueue, type TimedWorker } from './timed_workers.js';
