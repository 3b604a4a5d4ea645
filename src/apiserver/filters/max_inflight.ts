/**
 * The max-in-flight filter, like upstream's filters/maxinflight.go: separate
 * limits for read-only and mutating requests (--max-requests-inflight 400,
 * --max-mutating-requests-inflight 200); excess requests get 429 with
 * Retry-After. Non-resource requests count too, by their lower-case HTTP
 * method (only get, list and watch are read-only, as upstream's
 * nonMutatingRequestVerbs, so a HEAD or POST to a non-resource path is
 * mutating). Long-running requests (watches, proxy, exec, attach, log,
 * port-forward) take no slot; system:masters takes one when there is one and
 * is served anyway when the pool is full, as upstream. The plain port's
 * system:unsecured does count: upstream's insecure port ran this filter
 * before authentication, so its superuser was limited like anyone.
 */
import { tooManyRequests } from '../../api/index.js';
import { UNSECURED_USER } from '../authentication/index.js';
import type { ApiServerMetrics } from '../metrics.js';
import type { RequestInfo } from '../request_info.js';

const READ_ONLY = new Set(['get', 'list', 'watch']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
// Upstream's user.SystemPrivilegedGroup: the break-glass identity is never throttled.
const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

/** Admits or rejects one request; call the returned release when it finishes. */
export class MaxInFlight {
  private readOnly = 0;
  private mutating = 0;

  constructor(
    private readonly maxReadOnly: number,
    private readonly maxMutating: number,
    private readonly metrics?: ApiServerMetrics,
  ) {
    // The in-flight gauge is read at scrape time rather than set twice per request.
    if (metrics !== undefined) metrics.inflightSource = () => ({ readOnly: this.readOnly, mutating: this.mutating });
  }

  /** Whether a request is long-running (exempt), like upstream's BasicLongRunningRequestCheck. */
  static isLongRunning(info: RequestInfo): boolean {
    return (
      info.isResourceRequest &&
      (info.verb === 'watch' || info.verb === 'proxy' || LONG_RUNNING_SUBRESOURCES.has(info.subresource))
    );
  }

  /**
   * Takes a slot, or throws 429 when the pool is full. A limit of 0 means no limit; an authenticated
   * system:masters is served without one when the pool is full.
   */
  acquire(info: RequestInfo): () => void {
    if (MaxInFlight.isLongRunning(info)) return NOOP;
    const mut = !READ_ONLY.has(info.verb);
    const limit = mut ? this.maxMutating : this.maxReadOnly;
    if (limit <= 0) return NOOP;
    const used = mut ? this.mutating : this.readOnly;
    if (used >= limit) {
      const user = info.user;
      if (user !== undefined && user !== UNSECURED_USER && user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return NOOP;
      this.metrics?.rejected.inc({ request_kind: mut ? 'mutating' : 'readOnly' });
      throw tooManyRequests('Too many requests, please try again later.', 1);
    }
    if (mut) this.mutating++;
    else this.readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mut) this.mutating--;
      else this.readOnly--;
    };
  }
}

const NOOP = (): void => undefined;
