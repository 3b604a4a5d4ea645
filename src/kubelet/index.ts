/**
 * The public surface of src/kubelet: the HollowKubelet (node registration,
 * lease, node status, pod lifecycle over the API) and the Fleet that runs
 * thousands of them in one process, with its control endpoint.
 */
export {
  DEFAULT_SETTINGS,
  nodeIdentity,
  parseLabels,
  parseTaints,
  zoneName,
  type HeartbeatMode,
  type KubeletSettings,
  type NodeIdentity,
} from './config.js';
export { Fleet, type FleetJoinOptions, type FleetOptions, type FleetStats, type PodWatchMode } from './fleet.js';
export { JoinLimiter, NodeJoin, type NodeJoinOptions } from './node_join.js';
export { PodReferenceManager, type PodReferencesMode, type PodReferenceStats } from './pod_references.js';
export { NODES_PER_FLEET_PROCESS, defaultFleetProcesses, fleetSlices, type FleetSlice } from './fleet_slices.js';
export {
  callFleet,
  endpointFile,
  findFleets,
  serveControl,
  type ControlRequest,
  type ControlServer,
  type FleetEndpoint,
} from './fleet_control.js';
export { HollowKubelet, type HollowKubeletOptions } from './hollow_kubelet.js';
export { logNormalLatency, parseLatency, type LatencySampler } from './latency.js';
export { NodeLeaseController, leaseRenewIntervalMs, type LeaseAPI } from './lease.js';
export { KUBELET_VERSION, initialNode } from './node.js';
export { NodeStatusUpdater, type NodeStatusAPI } from './node_status.js';
export { PodIPAllocator } from './pod_ips.js';
export { PodStartStats, type MsPercentiles, type PodStartSnapshot } from './pod_start_stats.js';
export { runningPatch, terminatedPatch } from './pod_status.js';
export { PodWorkers, type PodAPI } from './pod_worker.js';
export { TimerQueue, type TaskHandle } from './timer_queue.js';
export { FleetMetrics, POD_START_SLI_BUCKETS, REST_CLIENT_BUCKETS, type FleetGauges } from './fleet_metrics.js';
