/**
 * The max-in-flight filter, like upstream's filters/maxinflight.go: separate
 * limits for read-only and mutating requests (--max-requests-inflight 400,
 * --max-mutating-requests-inflight 200); excess requests get 429 with
 * Retry-After; long-running requests (watches) and requests from
 * system:masters do not count, as upstream exempts them. The plain port's
 * system:unsecured does count: upstream's insecure port ran this filter
 * before authentication, so its superuser was limited like anyone.
 */
import { tooManyRequests } from '../../api/index.js';
import { UNSECURED_USER } from '../authentication/index.js';
import type { ApiServerMetrics } from '../metrics.js';
import type { RequestInfo } from '../request_info.js';

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
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
      info.verb === 'watch' || info.subresource === 'proxy' || info.subresource === 'log' || info.subresource === 'exec'
    );
  }

  /** Takes a slot, or throws 429 when the pool is full. A limit of 0 means no limit; an authenticated system:masters takes none. */
  acquire(info: RequestInfo): () => void {
    if (!info.isResourceRequest || MaxInFlight.isLongRunning(info)) return NOOP;
    const user = info.user;
    if (user !== undefined && user !== UNSECURED_USER && user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return NOOP;
    const mut = MUTATING.has(info.verb);
    const limit = mut ? this.maxMutating : this.maxReadOnly;
    const used = mut ? this.mutating : this.readOnly;
    if (limit > 0 && used >= limit) {
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
