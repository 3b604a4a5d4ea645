/** StatefulSet controller settings, with upstream's defaults. */

/** StatefulSetControllerConfiguration. */
export interface StatefulSetControllerOptions {
  /** --concurrent-statefulset-syncs: workers syncing StatefulSets at once (5). */
  concurrentStatefulSetSyncs: number;
}

/** Upstream's default: 5 workers. */
export const DEFAULT_STATEFULSET_OPTIONS: StatefulSetControllerOptions = { concurrentStatefulSetSyncs: 5 };
