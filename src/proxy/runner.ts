/**
 * BoundedFrequencyRunner, like upstream's pkg/util/async: runs the sync
 * function when asked, but never more often than every `minInterval`
 * (--min-sync-period) and at least every `maxInterval` (--sync-period). Runs
 * never overlap; a request during a run schedules one more run after it. A
 * failed run is retried after `retryInterval`.
 */
import type { Clock, Timer } from '../clock/index.js';

/** Runner knobs, in milliseconds. */
export interface RunnerOptions {
  minIntervalMs: number;
  maxIntervalMs: number;
  retryIntervalMs?: number;
  clock: Clock;
  /** Called with a run's error; the run is retried. */
  onError?: (err: unknown) => void;
}

/** Rate-limits calls to one async function. */
export class BoundedFrequencyRunner {
  private lastRun = Number.NEGATIVE_INFINITY;
  private timer: Timer | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Completed runs, for tests and stats. */
  runs = 0;

  constructor(
    private readonly fn: () => Promise<void>,
    private readonly opts: RunnerOptions,
  ) {}

  /** Starts the periodic runs with one run now. */
  start(): void {
    this.schedule(0);
  }

  /** Asks for a run as soon as the minimum interval allows. */
  run(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.schedule(Math.max(0, this.lastRun + this.opts.minIntervalMs - this.opts.clock.monotonic()));
  }

  /** Stops scheduling and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  /** Resolves once no run is in progress or scheduled before `maxInterval` (for tests). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = this.opts.clock.monotonic() + delayMs;
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.opts.clock.setTimeout(() => this.tick(), delayMs);
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.stopped || this.running !== undefined) return;
    this.lastRun = this.opts.clock.monotonic();
    this.again = false;
    let failed = false;
    this.running = this.fn()
      .catch((err: unknown) => {
        failed = true;
        this.opts.onError?.(err);
      })
      .finally(() => {
        this.running = undefined;
        this.runs++;
        if (this.stopped) return;
        if (failed) this.schedule(this.opts.retryIntervalMs ?? this.opts.maxIntervalMs);
        else if (this.again) this.run();
        // schedule() keeps the earliest timer, so this only arms the periodic run when nothing sooner is due.
        this.schedule(Math.max(0, this.lastRun + this.opts.maxIntervalMs - this.opts.clock.monotonic()));
      });
  }
}
