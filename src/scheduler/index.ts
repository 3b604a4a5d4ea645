/**
 * The public surface of src/scheduler, kscale's kube-scheduler: the
 * Scheduler (queue, cache, framework, binder), its configuration, the
 * in-tree plugin registry and the server that runs it with leader election.
 */
export { Scheduler, type SchedulerOptions, type ProfileSpec } from './scheduler.js';
export { SchedulerCache } from './cache/cache.js';
export { SchedulingQueue, type SchedulingQueueOptions, type PendingCounts } from './queue/scheduling_queue.js';
export { Framework, EXTENSION_POINTS, type ResolvedPlugins, type ExtensionPoint } from './framework/runtime.js';
export { CycleState } from './framework/cycle_state.js';
export { NodeInfo } from './framework/node_info.js';
export { newPodInfo, type PodInfo, type AffinityTerm } from './framework/pod_info.js';
export { Status, Code, SUCCESS, newStatus, pluginStatus, type MaybeStatus } from './framework/status.js';
export * from './framework/interface.js';
export { numFeasibleNodesToFind, fitErrorMessage } from './schedule_one.js';
export { inTreeRegistry, DEFAULT_MULTI_POINT } from './plugins/registry.js';
export { PODGROUPS, POD_GROUP_LABEL, type PodGroup } from './plugins/coscheduling/index.js';
export {
  loadSchedulerConfiguration,
  resolveProfiles,
  type KubeSchedulerConfiguration,
  type ProfileConfig,
  type PluginSet,
} from './config.js';
export { SchedulerMetrics } from './metrics/metrics.js';
export { SchedulerServer, type SchedulerServerOptions } from './server.js';
