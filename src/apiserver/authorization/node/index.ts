// The Node authorizer: its graph, the pod informer's populator, and the node identity.
export { Graph, type PodRefs, type PVRefs, type VertexType } from './graph.js';
export { podGraphPopulator, type GraphPopulator, type PodGraphPopulator } from './graph_populator.js';
export { pvGraphPopulator, pvRefs } from './pv_graph_populator.js';
export { nodeIdentity, NODES_GROUP } from './identity.js';
export { NodeAuthorizer } from './node_authorizer.js';
export { MIRROR_POD_ANNOTATION, podRefs } from './pod_refs.js';
