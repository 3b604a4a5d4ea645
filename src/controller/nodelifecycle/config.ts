/** NodeLifecycleControllerConfiguration, with kube-controller-manager's flag defaults. */

/** Settings of the node lifecycle controller; durations in ms. */
export interface NodeLifecycleControllerOptions {
  /** --node-monitor-period: how often node health is checked (5 s). */
  nodeMonitorPeriodMs: number;
  /** --node-monitor-grace-period: silence before a node is marked Unknown (50 s). */
  nodeMonitorGracePeriodMs: number;
  /** --node-startup-grace-period: the same for a node that never posted status (1 m). */
  nodeStartupGracePeriodMs: number;
  /** --node-eviction-rate: nodes per second that get a NoExecute taint in a healthy zone (0.1). */
  nodeEvictionRate: number;
  /** --secondary-node-eviction-rate: the rate in a partially disrupted large zone (0.01). */
  secondaryNodeEvictionRate: number;
  /** --unhealthy-zone-threshold: unhealthy fraction that makes a zone PartialDisruption (0.55). */
  unhealthyZoneThreshold: number;
  /** --large-cluster-size-threshold: zones above this many nodes keep the secondary rate, others stop (50). */
  largeClusterSizeThreshold: number;
}

/** Upstream's defaults. */
export const DEFAULT_NODE_LIFECYCLE_OPTIONS: Readonly<NodeLifecycleControllerOptions> = {
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  unhealthyZoneThreshold: 0.55,
  largeClusterSizeThreshold: 50,
};

/** How often the NoExecute tainting pass drains the zone queues (scheduler.NodeEvictionPeriod). */
export const NODE_EVICTION_PERIOD_MS = 100;
/** Workers of the node update (NoSchedule taints) and pod update queues, and node health parallelism. */
export const NODE_UPDATE_WORKER_SIZE = 8;
/** Attempts of a node health update (scheduler.NodeHealthUpdateRetry). */
export const NODE_HEALTH_UPDATE_RETRY = 5;
