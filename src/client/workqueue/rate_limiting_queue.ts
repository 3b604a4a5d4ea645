/**
 * RateLimitingQueue, like client-go's workqueue.RateLimitingInterface: a
 * DelayingQueue whose addRateLimited asks a rate limiter how long the item
 * must wait, so a failing key is retried with growing delays.
 */
import type { Clock } from '../../clock/index.js';
import { defaultControllerRateLimiter, type WorkqueueRateLimiter } from './default_rate_limiters.js';
import { DelayingQueue } from './delaying_queue.js';

/** Options of a RateLimitingQueue. */
export interface RateLimitingQueueOptions<T> {
  clock?: Clock;
  /** Names the queue in the workqueue metrics, like client-go's RateLimitingQueueConfig.Name. */
  name?: string;
  /** Defaults to client-go's default controller rate limiter. */
  rateLimiter?: WorkqueueRateLimiter<T>;
}

/** A delaying work queue with per-item rate-limited requeues. */
export class RateLimitingQueue<T = string> extends DelayingQueue<T> {
  readonly rateLimiter: WorkqueueRateLimiter<T>;

  constructor(opts: RateLimitingQueueOptions<T> = {}) {
    super({
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
      ...(opts.name !== undefined ? { name: opts.name } : {}),
    });
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /** Adds `item` after the delay the rate limiter gives it. */
  addRateLimited(item: T): void {
    this.retried();
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Ends rate limiting of `item` (its backoff restarts); call when it succeeded or is dropped. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** How many times `item` was requeued with addRateLimited since the last forget. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
