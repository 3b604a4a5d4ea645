/** The garbage collector (pkg/controller/garbagecollector). */
export { GarbageCollector, GARBAGE_COLLECTOR_CONTROLLER } from './garbagecollector.js';
export { DEFAULT_GARBAGE_COLLECTOR_OPTIONS, MONITORED_RESOURCES, type GarbageCollectorOptions } from './config.js';
export { GraphBuilder, GraphNode, type ObjectIdentity } from './graph.js';
