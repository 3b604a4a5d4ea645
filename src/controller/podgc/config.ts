/** Pod GC settings, with upstream's defaults. */

/** PodGCControllerConfiguration plus the periods upstream fixes in code (options here for tests). */
export interface PodGCControllerOptions {
  /** --terminated-pod-gc-threshold: terminated pods kept before the oldest are deleted; <= 0 disables that part. */
  terminatedPodGCThreshold: number;
  /** How often the collector runs (upstream's gcCheckPeriod, 20 s). */
  gcCheckPeriodMs: number;
  /** How long a node must stay missing before its pods go (upstream's quarantineTime, 40 s). */
  quarantineMs: number;
}

/** Upstream's defaults. */
export const DEFAULT_PODGC_OPTIONS: PodGCControllerOptions = {
  terminatedPodGCThreshold: 12500,
  gcCheckPeriodMs: 20_000,
  quarantineMs: 40_000,
};
