/**
 * Asks storage for a progress notification while readers wait for the cache
 * to catch up, like upstream's conditionalProgressRequester: consistent reads
 * from cache need the cache's revision to reach storage's, and an idle
 * resource only gets there through progress events. Requests stop as soon as
 * nobody waits, so an idle cache costs storage nothing.
 */
import type { Clock } from '../../clock/index.js';

/** How many requests go out on consecutive event-loop turns before falling back to the interval. */
const QUICK_RETRIES = 20;

/** Requests progress on behalf of waiting readers. */
export class ProgressRequester {
  private running = false;
  private quick = 0;
  private stopped = false;
  /** Requests sent, for metrics and tests. */
  requests = 0;

  constructor(
    private readonly request: () => void,
    private readonly hasWaiters: () => boolean,
    private readonly clock: Clock,
    private readonly intervalMs = 100,
  ) {}

  /** Starts requesting (a no-op while already running). */
  kick(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.quick = 0;
    setImmediate(() => this.tick());
  }

  /** Stops for good. */
  stop(): void {
    this.stopped = true;
  }

  private tick(): void {
    if (this.stopped || !this.hasWaiters()) {
      this.running = false;
      return;
    }
    this.requests++;
    this.request();
    // Storage may have committed a write it has not dispatched yet, so the first
    // answer can fall short: retry on the next turns, then at the interval.
    if (++this.quick <= QUICK_RETRIES) setImmediate(() => this.tick());
    else this.clock.setTimeout(() => this.tick(), this.intervalMs);
  }
}
