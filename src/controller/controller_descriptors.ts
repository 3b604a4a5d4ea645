/**
 * The controllers kscale's controller-manager knows, like
 * NewControllerDescriptors. A new controller lives in src/controller/<name>/
 * and adds one descriptor here.
 */
import type { ControllerDescriptor } from './controller_descriptor.js';
import { NODE_LIFECYCLE_CONTROLLER, NodeLifecycleController } from './nodelifecycle/index.js';
import { TAINT_EVICTION_CONTROLLER, TaintEvictionController } from './tainteviction/index.js';
import { ENDPOINTSLICE_CONTROLLER, EndpointSliceController } from './endpointslice/index.js';
import { ENDPOINTS_CONTROLLER, EndpointsController } from './endpoints/index.js';

/** Every known controller, in start order. */
export function newControllerDescriptors(): ControllerDescriptor[] {
  return [
    { name: NODE_LIFECYCLE_CONTROLLER, aliases: ['nodelifecycle'], init: (ctx) => new NodeLifecycleController(ctx) },
    { name: TAINT_EVICTION_CONTROLLER, aliases: ['tainteviction'], init: (ctx) => new TaintEvictionController(ctx) },
    { name: ENDPOINTS_CONTROLLER, aliases: ['endpoint'], init: (ctx) => new EndpointsController(ctx) },
    { name: ENDPOINTSLICE_CONTROLLER, aliases: ['endpointslice'], init: (ctx) => new EndpointSliceController(ctx) },
  ];
}
