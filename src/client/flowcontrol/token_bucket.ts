/**
 * A QPS/burst token bucket, like client-go's flowcontrol.NewTokenBucketRateLimiter:
 * the bucket holds up to `burst` tokens and refills at `qps` per second. Callers
 * reserve a token and wait out the deficit, so waiters are served in order.
 */
import type { Clock } from '../../clock/index.js';

/** A client-side rate limiter; `wait` resolves when the caller may send. */
export interface RateLimiter {
  /** Reserves a token and resolves once it is due. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Takes a token only if one is available now. */
  tryAccept(): boolean;
  /** How long a reservation made now would wait, in ms, and takes it. */
  reserve(): number;
}

/** A token bucket refilled at `qps`/s up to `burst`; qps <= 0 means unlimited. */
export class TokenBucket implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.burst = Math.max(1, burst);
    this.tokens = this.burst;
    this.last = clock.monotonic();
  }

  private refill(): void {
    const now = this.clock.monotonic();
    // Tokens may be negative (outstanding reservations); refill towards burst only.
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  /** Tokens available now (negative while reservations are outstanding). */
  available(): number {
    if (this.qps <= 0) return Infinity;
    this.refill();
    return this.tokens;
  }

  reserve(): number {
    if (this.qps <= 0) return 0;
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  tryAccept(): boolean {
    if (this.qps <= 0) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  async wait(signal?: AbortSignal): Promise<void> {
    const ms = this.reserve();
    if (ms <= 0) return;
    await sleepAbortable(this.clock, ms, signal);
  }
}

/** Sleeps on the clock, rejecting early with the signal's reason when aborted. */
export function sleepAbortable(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) return clock.sleep(ms);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      t.cancel();
      reject(signal.reason as Error);
    };
    const t = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
