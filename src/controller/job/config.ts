/** JobControllerConfiguration, with kube-controller-manager's defaults. */

/** Settings of the Job controller; durations in ms. */
export interface JobControllerOptions {
  /** --concurrent-job-syncs: Jobs synced at once (5). */
  concurrentJobSyncs: number;
  /**
   * --job-pod-failure-backoff (kscale only; upstream's is the constant
   * DefaultJobPodFailureBackOff, 10 s): the first delay before a failed
   * pod is replaced, doubling per consecutive failure.
   */
  podFailureBackoffMs: number;
  /** The cap of that delay (upstream's MaxJobPodFailureBackOff, 10 min). */
  maxPodFailureBackoffMs: number;
  /** Pod events are batched this long into one Job sync (upstream's syncJobBatchPeriod, 1 s). */
  syncJobBatchPeriodMs: number;
}

/** Upstream's defaults. */
export const DEFAULT_JOB_OPTIONS: Readonly<JobControllerOptions> = {
  concurrentJobSyncs: 5,
  podFailureBackoffMs: 10_000,
  maxPodFailureBackoffMs: 600_000,
  syncJobBatchPeriodMs: 1_000,
};

/** At most this many pods are created or deleted in one sync (upstream's MaxPodCreateDeletePerSync). */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
