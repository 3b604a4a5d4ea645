/** EndpointControllerConfiguration, with kube-controller-manager's flag defaults. */

/** Settings of the Endpoints controller; durations in ms. */
export interface EndpointsControllerOptions {
  /** --concurrent-endpoint-syncs: Services synced at once (5). */
  concurrentEndpointSyncs: number;
  /** --endpoint-updates-batch-period: how long pod changes wait to be batched into one sync (0). */
  endpointUpdatesBatchPeriodMs: number;
}

/** Upstream's defaults. */
export const DEFAULT_ENDPOINTS_OPTIONS: Readonly<EndpointsControllerOptions> = {
  concurrentEndpointSyncs: 5,
  endpointUpdatesBatchPeriodMs: 0,
};

/** Addresses an Endpoints object holds at most; the rest are truncated (upstream's maxCapacity). */
export const MAX_ENDPOINTS_CAPACITY = 1000;
/** The over-capacity annotation's value when addresses were dropped. */
export const OVER_CAPACITY_TRUNCATED = 'truncated';
