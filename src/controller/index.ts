/**
 * The public surface of src/controller, kscale's kube-controller-manager
 * library: the controller framework (context, descriptors, shared informers,
 * start-up) and every controller, one folder each.
 */
export {
  defaultControllerManagerConfiguration,
  type Controller,
  type ControllerContext,
  type ControllerManagerConfiguration,
} from './controller_context.js';
export { isControllerEnabled, validateControllers, type ControllerDescriptor } from './controller_descriptor.js';
export { newControllerDescriptors } from './controller_descriptors.js';
export { SimpleControllerClientBuilder, type ControllerClientBuilder } from './client_builder.js';
export { CONTROLLER_SERVICE_ACCOUNTS, SAControllerClientBuilder } from './sa_client_builder.js';
export { startControllers, type RunningControllers } from './controller_manager.js';
export { Periodic, parallelize } from './periodic.js';
export * as nodeutil from './nodeutil/index.js';
export * from './nodelifecycle/index.js';
export * from './tainteviction/index.js';
export * as controllerutil from './controllerutil/index.js';
export * from './replicaset/index.js';
export * from './deployment/index.js';
export * from './garbagecollector/index.js';
export * from './podgc/index.js';
export * from './endpointslice/index.js';
export * from './endpoints/index.js';
export * as endpointutil from './endpointutil/index.js';
export * from './job/index.js';
export * from './bootstrap/index.js';
export * from './certificates/index.js';
export * from './rootcacertpublisher/index.js';
export * from './serviceaccount/index.js';
export * from './clusterroleaggregation/index.js';
export * from './cronjob/index.js';
