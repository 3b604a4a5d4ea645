/**
 * Jittered exponential backoff, like apimachinery's wait.Backoff with
 * client-go's reflector settings (800 ms doubling to 30 s, jitter 1.0, reset
 * after 2 min of calm). Jitter spreads thousands of clients that fail at the
 * same instant (an API server restart) so they do not reconnect in lock-step.
 */
import type { Clock } from '../../clock/index.js';

/** Parameters of an exponential backoff. */
export interface BackoffOptions {
  /** First delay in ms. */
  initialMs?: number;
  /** Upper bound of the un-jittered delay in ms. */
  maxMs?: number;
  /** Growth per step. */
  factor?: number;
  /** Each delay is d + rand*jitter*d, like wait.Jitter. */
  jitter?: number;
  /** Start over when no backoff was requested for this long (ms). */
  resetAfterMs?: number;
  clock: Clock;
  /** Injected randomness in [0, 1). */
  random?: () => number;
}

/** An exponential backoff manager; `next()` returns the delay to wait now. */
export class Backoff {
  private step = 0;
  private lastAt = -Infinity;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(o: BackoffOptions) {
    this.initialMs = o.initialMs ?? 800;
    this.maxMs = o.maxMs ?? 30_000;
    this.factor = o.factor ?? 2;
    this.jitter = o.jitter ?? 1;
    this.resetAfterMs = o.resetAfterMs ?? 120_000;
    this.clock = o.clock;
    this.random = o.random ?? Math.random;
  }

  /** The next delay in ms, growing each call until `reset` or a calm period. */
  next(): number {
    const now = this.clock.monotonic();
    if (now - this.lastAt > this.resetAfterMs) this.step = 0;
    this.lastAt = now;
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.step);
    if (base < this.maxMs) this.step++;
    return base + (this.jitter > 0 ? this.random() * this.jitter * base : 0);
  }

  /** Forgets past failures. */
  reset(): void {
    this.step = 0;
  }
}
