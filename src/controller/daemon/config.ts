/** DaemonSet controller settings, with upstream's defaults. */

/** DaemonSetControllerConfiguration plus the constant upstream fixes in code. */
export interface DaemonSetControllerOptions {
  /** --concurrent-daemonset-syncs: workers syncing DaemonSets at once (2). */
  concurrentDaemonSetSyncs: number;
  /** Creates or deletes per sync at most (upstream's BurstReplicas, 250). */
  burstReplicas: number;
}

/** Upstream's defaults: 2 workers, 250 burst replicas. */
export const DEFAULT_DAEMONSET_OPTIONS: DaemonSetControllerOptions = {
  concurrentDaemonSetSyncs: 2,
  burstReplicas: 250,
};
