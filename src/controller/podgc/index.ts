/** The pod garbage collector (pkg/controller/podgc). */
export { PodGCController, PODGC_CONTROLLER } from './gc_controller.js';
export { DEFAULT_PODGC_OPTIONS, type PodGCControllerOptions } from './config.js';
