/** ReplicaSet controller settings, with upstream's defaults. */

/** ReplicaSetControllerConfiguration plus the constants upstream fixes in code. */
export interface ReplicaSetControllerOptions {
  /** --concurrent-replicaset-syncs: workers syncing ReplicaSets at once. */
  concurrentRSSyncs: number;
  /** Creates or deletes per sync at most (upstream's BurstReplicas, 500). */
  burstReplicas: number;
}

/** Upstream's defaults: 5 workers, 500 burst replicas. */
export const DEFAULT_REPLICASET_OPTIONS: ReplicaSetControllerOptions = { concurrentRSSyncs: 5, burstReplicas: 500 };

/** The first batch of slowStartBatch (controller.SlowStartInitialBatchSize). */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;
