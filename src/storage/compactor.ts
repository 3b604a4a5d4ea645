/**
 * Compaction on a schedule, like kube-apiserver's --etcd-compaction-interval
 * (apiserver/pkg/storage/etcd3/compact.go). Every interval the store is
 * compacted to the revision recorded at the previous tick, so at least one
 * interval of history always stays readable and watchable: a watcher that is
 * less than one interval behind never sees Expired.
 */
import type { Clock, Timer } from '../clock/index.js';
import type { Storage } from './interface.js';
import { failpointsEnabled, hit } from '../failpoint/index.js';

/** kube-apiserver's default --etcd-compaction-interval: 5 minutes. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/** Where failures are reported; pino's `warn(obj, msg)` fits. */
export interface CompactorLogger {
  warn(fields: Record<string, unknown>, msg: string): void;
  /** Each compaction's revision and durations, so a stall can be matched against it in the log. */
  info?(fields: Record<string, unknown>, msg: string): void;
}

/** Options of the Compactor. */
export interface CompactorOptions {
  clock: Clock;
  /** --etcd-compaction-interval in ms; 0 disables compaction. Default 5 min. */
  intervalMs?: number;
  /** Failures go here; they are also counted in `stats.errors`. */
  log?: CompactorLogger;
  /**
   * Runs after every tick, compaction or not: the server uses it to checkpoint
   * the store under a watch cache, and to defragment while the NOSPACE alarm
   * is raised (the embedded store has no etcdctl to do it by hand).
   */
  afterTick?: () => Promise<void>;
}

/** Counters for metrics and tests. */
export interface CompactorStats {
  /** Ticks that compacted (the first tick only records a revision). */
  compactions: number;
  /** WAL checkpoints run after a compaction. */
  checkpoints: number;
  /** Ticks that failed; the error was logged, never thrown. */
  errors: number;
  /** The revision of the last successful compaction (0: none yet). */
  compactedRevision: number;
  lastError?: unknown;
}

/** A running schedule; stopping it is explicit. */
export interface CompactorHandle extends Disposable {
  stop(): void;
}

/** Compacts a store every interval to the revision seen one interval earlier. */
export class Compactor {
  readonly stats: CompactorStats = { compactions: 0, checkpoints: 0, errors: 0, compactedRevision: 0 };
  private readonly intervalMs: number;
  /** The revision recorded at the previous tick: the next compaction target. */
  private recorded = 0;
  private timer: Timer | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: Storage,
    private readonly opts: CompactorOptions,
  ) {
    this.intervalMs = opts.intervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  }

  /** Starts ticking every interval (a no-op when the interval is 0). Calling it twice keeps one schedule. */
  start(): CompactorHandle {
    if (this.timer === null && this.intervalMs > 0) {
      this.timer = this.opts.clock.setInterval(() => void this.tick(), this.intervalMs);
    }
    const stop = (): void => this.stop();
    return { stop, [Symbol.dispose]: stop };
  }

  /** Stops the schedule; a tick in progress finishes (see `idle`). */
  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /**
   * One tick, as the timer runs it: compact to the revision recorded last
   * time, then record the current one. A tick that finds the previous one
   * still running is skipped, so slow compactions never pile up. Never throws.
   */
  tick(): Promise<void> {
    if (this.running !== null) return this.running;
    this.running = this.compactOnce().finally(() => (this.running = null));
    return this.running;
  }

  /** Resolves once the tick in progress, if any, has finished. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async compactOnce(): Promise<void> {
    try {
      // Read the current revision first, as upstream's txn does, so the next
      // target is never older than what this tick compacts to.
      const current = await this.store.currentRevision();
      const target = this.recorded;
      this.recorded = current;
      const t0 = performance.now();
      let t1 = t0;
      let t2 = t0;
      if (target > 0 && target > this.stats.compactedRevision) {
        if (failpointsEnabled) await hit('compactor/beforeCompact');
        await this.store.compact(target);
        this.stats.compactions++;
        this.stats.compactedRevision = target;
        t1 = t2 = performance.now();
        if (typeof this.store.checkpoint === 'function') {
          await this.store.checkpoint();
          this.stats.checkpoints++;
          t2 = performance.now();
        }
      }
      await this.opts.afterTick?.();
      if (t1 > t0) {
        const ms = (a: number, b: number): number => Math.round(b - a);
        this.opts.log?.info?.(
          { revision: target, compactMs: ms(t0, t1), checkpointMs: ms(t1, t2), afterTickMs: ms(t2, performance.now()) },
          'storage compacted',
        );
      }
    } catch (err) {
      this.stats.errors++;
      this.stats.lastError = err;
      this.opts.log?.warn({ err, revision: this.recorded }, 'storage compaction failed');
    }
  }
}
