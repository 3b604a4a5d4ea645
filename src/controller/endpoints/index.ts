/** The Endpoints controller: the legacy one-object-per-Service endpoints, capped at 1,000 addresses. */
export { EndpointsController, ENDPOINTS_CONTROLLER, type EndpointsControllerStats } from './endpoints_controller.js';
export { DEFAULT_ENDPOINTS_OPTIONS, MAX_ENDPOINTS_CAPACITY, type EndpointsControllerOptions } from './config.js';
export { computeSubsets, truncateSubsets, addressCount } from './subsets.js';
