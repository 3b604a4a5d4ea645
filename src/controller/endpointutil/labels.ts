/** The labels and annotations the endpoint controllers write; the Service and endpoint types are src/api's. */

/** Labels and annotations both controllers write. */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
/** The managed-by value of slices this controller owns (upstream's controller name). */
export const ENDPOINTSLICE_CONTROLLER_MANAGED_BY = 'endpointslice-controller.k8s.io';
export const LABEL_HEADLESS = 'service.kubernetes.io/headless';
export const ANNOTATION_LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
export const ANNOTATION_OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
