/** EndpointSliceControllerConfiguration, with kube-controller-manager's flag defaults. */

/** Settings of the EndpointSlice controller; durations in ms. */
export interface EndpointSliceControllerOptions {
  /** --concurrent-service-endpoint-syncs: Services synced at once (5). */
  concurrentServiceEndpointSyncs: number;
  /** --max-endpoints-per-slice: endpoints per slice (100; the API allows up to 1,000). */
  maxEndpointsPerSlice: number;
  /** --endpointslice-updates-batch-period: how long pod changes wait to be batched into one sync (0). */
  endpointUpdatesBatchPeriodMs: number;
}

/** Upstream's defaults. */
export const DEFAULT_ENDPOINTSLICE_OPTIONS: Readonly<EndpointSliceControllerOptions> = {
  concurrentServiceEndpointSyncs: 5,
  maxEndpointsPerSlice: 100,
  endpointUpdatesBatchPeriodMs: 0,
};

/** A Service is dropped from the queue after this many failed syncs (upstream's maxRetries). */
export const MAX_RETRIES = 15;
/** Retry back-off of a failed Service sync: 1 s doubling to 1,000 s (upstream's defaultSyncBackOff, maxSyncBackOff). */
export const SYNC_BACKOFF_MS = { base: 1_000, max: 1_000_000 };
