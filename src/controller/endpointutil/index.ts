/** Helpers shared by the EndpointSlice and Endpoints controllers, like pkg/controller/util/endpoint. */
export * from './labels.js';
export { isPodReady, podIPv4, shouldPodBeInEndpoints, findPort, endpointHostname, podEndpointsChanged } from './pod.js';
export { serviceSelector, podServiceMemberships, servicesToSyncForPod, selectedPods } from './service.js';
export { ensureLabelIndexes, labelPair, POD_LABEL_INDEX, SERVICE_SELECTOR_INDEX } from './label_index.js';
export { TriggerTimeTracker } from './trigger_time_tracker.js';
export type { EndpointControllerStats } from './stats.js';
export { watchServicesAndPods, type ServicePodInformers } from './informers.js';
export { ServiceEndpointsController } from './service_controller.js';
