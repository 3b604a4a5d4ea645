/**
 * StaleEndpointsTracker, like pkg/controller/endpoint's staleEndpointsTracker:
 * remembers, per Endpoints, the resourceVersion this controller last replaced
 * with a write. While the informer still holds that version, the cache is
 * behind our own write: acting on it would send an update bound to fail with
 * a 409 Conflict (and a FailedToUpdateEndpoint Event).
 */
import type { Endpoints } from '../../api/index.js';

/** The replaced resourceVersion of each Endpoints, by `namespace/name`. */
export class StaleEndpointsTracker {
  private readonly staleResourceVersion = new Map<string, string>();

  /** Records that `endpoints` (the cached object a write just replaced) is now stale. */
  stale(key: string, endpoints: Endpoints): void {
    const rv = endpoints.metadata?.resourceVersion;
    if (rv !== undefined) this.staleResourceVersion.set(key, rv);
  }

  /** True when the cached `endpoints` is the version a write of ours already replaced. */
  isStale(key: string, endpoints: Endpoints): boolean {
    const rv = this.staleResourceVersion.get(key);
    return rv !== undefined && rv === endpoints.metadata?.resourceVersion;
  }

  /** Forgets an Endpoints (its Service or itself was deleted). */
  delete(key: string): void {
    this.staleResourceVersion.delete(key);
  }
}
