/** The EndpointSlice controller: a Service's pods as EndpointSlices of at most --max-endpoints-per-slice endpoints, with topology hints. */
export {
  EndpointSliceController,
  ENDPOINTSLICE_CONTROLLER,
  SLICE_SERVICE_INDEX,
  type EndpointSliceControllerStats,
} from './endpointslice_controller.js';
export { DEFAULT_ENDPOINTSLICE_OPTIONS, type EndpointSliceControllerOptions } from './config.js';
export { reconcile, sliceLabels, type ReconcilePlan } from './reconciler.js';
export { desiredEndpoints, endpointKey, podToEndpoint } from './endpoint.js';
export { TopologyCache, hintsMode, ANNOTATION_TOPOLOGY_MODE, type HintsMode } from './topology_cache.js';
