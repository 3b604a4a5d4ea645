/**
 * Per-item rate limiters, like client-go's workqueue/default_rate_limiters.go.
 * The default controller limiter is the max of a per-item exponential
 * backoff (5 ms doubling to 1000 s) and an overall token bucket (10 qps,
 * burst 100), so one failing key backs off and a storm of failures is capped.
 */
import { RealClock, type Clock } from '../../clock/index.js';
import { TokenBucket } from '../flowcontrol/token_bucket.js';

/** Decides how long an item waits before its next retry. */
export interface WorkqueueRateLimiter<T> {
  /** The delay for this retry of `item`, in ms; counts the retry. */
  when(item: T): number;
  /** Clears `item`'s failure history (call after it succeeded). */
  forget(item: T): void;
  /** How many times `item` has been retried since the last forget. */
  numRequeues(item: T): number;
}

/** base * 2^failures, capped at max: per-item exponential backoff. */
export class ItemExponentialFailureRateLimiter<T> implements WorkqueueRateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1_000_000,
  ) {}

  when(item: T): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    // 2^n overflows to Infinity for large n; the cap keeps it finite.
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** An overall token bucket: each retry reserves a token; items do not matter. */
export class BucketRateLimiter<T> implements WorkqueueRateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock: Clock = new RealClock()) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters. */
export class MaxOfRateLimiter<T> implements WorkqueueRateLimiter<T> {
  private readonly limiters: WorkqueueRateLimiter<T>[];

  constructor(...limiters: WorkqueueRateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    return Math.max(0, ...this.limiters.map((l) => l.when(item)));
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(0, ...this.limiters.map((l) => l.numRequeues(item)));
  }
}

/** client-go's DefaultControllerRateLimiter: max(5 ms..1000 s per item, 10 qps / 100 burst overall). */
export function defaultControllerRateLimiter<T>(clock: Clock = new RealClock()): WorkqueueRateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
