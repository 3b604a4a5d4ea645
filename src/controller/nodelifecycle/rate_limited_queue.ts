/**
 * RateLimitedTimedQueue, like nodelifecycle/scheduler/rate_limited_queue.go:
 * a set of node names ordered by when they may be processed, drained by
 * try() at most as fast as a token bucket with burst 1 allows. A processed
 * name stays in the set (so it is not queued again) until remove().
 */
import { TokenBucket } from '../../client/index.js';
import type { Clock } from '../../clock/index.js';

/** EvictionRateLimiterBurst: one node at a time. */
export const EVICTION_RATE_LIMITER_BURST = 1;

/** A queued node: its name, UID, and when it was added and may be processed (ms). */
export interface TimedValue {
  value: string;
  uid: string;
  addedAt: number;
  processAt: number;
}

/** Processes a value: done, or retry after `retryMs`. */
export type ActionFunc = (v: TimedValue) => Promise<{ done: boolean; retryMs: number }>;

interface Limiter {
  readonly qps: number;
  tryAccept(): boolean;
}

/** A limiter that never admits anything (flowcontrol.NewFakeNeverRateLimiter), for rate 0. */
const neverLimiter = (): Limiter => ({ qps: 0, tryAccept: () => false });

/** A UniqueQueue plus a swappable token-bucket limiter. */
export class RateLimitedTimedQueue {
  private readonly queue = new Map<string, TimedValue>();
  private readonly set = new Set<string>();
  private limiter: Limiter;

  constructor(
    private readonly clock: Clock,
    qps: number,
  ) {
    this.limiter = this.newLimiter(qps);
  }

  private newLimiter(qps: number): Limiter {
    return qps <= 0 ? neverLimiter() : new TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, this.clock);
  }

  /** The limiter's rate. */
  get qps(): number {
    return this.limiter.qps;
  }

  /** Queues `value` unless it is in the set already (queued or processed); true when added. */
  add(value: string, uid: string): boolean {
    if (this.set.has(value)) return false;
    const now = this.clock.monotonic();
    this.set.add(value);
    this.queue.set(value, { value, uid, addedAt: now, processAt: now });
    return true;
  }

  /** Forgets `value` entirely, queued or processed; true when it was known. */
  remove(value: string): boolean {
    this.queue.delete(value);
    return this.set.delete(value);
  }

  /** Forgets everything. */
  clear(): void {
    this.queue.clear();
    this.set.clear();
  }

  /** Names waiting to be processed. */
  queued(): string[] {
    return [...this.queue.keys()];
  }

  /** The earliest value, oldest processAt first (ties in insertion order). */
  private head(): TimedValue | undefined {
    let best: TimedValue | undefined;
    for (const v of this.queue.values()) if (best === undefined || v.processAt < best.processAt) best = v;
    return best;
  }

  /** Processes due values while the limiter admits them; a failed value is retried after its wait. */
  async try(fn: ActionFunc): Promise<void> {
    for (let v = this.head(); v !== undefined; v = this.head()) {
      if (!this.limiter.tryAccept()) return;
      const now = this.clock.monotonic();
      if (now < v.processAt) return;
      const { done, retryMs } = await fn(v);
      const cur = this.queue.get(v.value);
      if (cur === undefined) continue;
      // Upstream holds the evictor lock across try(); a re-add made meanwhile from a stale view is the
      // same request, so success settles it too rather than tainting the node twice.
      if (done) this.queue.delete(v.value);
      else if (cur === v) v.processAt = now + retryMs + 1;
    }
  }

  /** Changes the rate; like upstream, a drained old bucket leaves the new one drained too. */
  swapLimiter(qps: number): void {
    if (this.limiter.qps === qps) return;
    const next = this.newLimiter(qps);
    if (qps > 0 && !this.limiter.tryAccept()) next.tryAccept();
    this.limiter = next;
  }
}
