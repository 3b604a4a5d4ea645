/**
 * When the server's event loop stood still, kept for the last few thousand
 * stalls so a slow request can be told how much of its time went to them:
 * a timer that fires late (its lateness is time no request made progress)
 * and the garbage collector's pauses (from `gc` performance entries).
 */
import { PerformanceObserver } from 'node:perf_hooks';

interface Interval {
  from: number;
  to: number;
}

/** A ring of the most recent intervals, oldest overwritten first. */
class IntervalRing {
  private readonly from: Float64Array;
  private readonly to: Float64Array;
  private next = 0;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.from = new Float64Array(capacity);
    this.to = new Float64Array(capacity);
  }

  add(i: Interval): void {
    this.from[this.next] = i.from;
    this.to[this.next] = i.to;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The ms of [from, to] that the kept intervals cover (they do not overlap one another). */
  overlap(from: number, to: number): number {
    let sum = 0;
    for (let k = 0; k < this.size; k++) {
      const a = Math.max(from, this.from[k]!);
      const b = Math.min(to, this.to[k]!);
      if (b > a) sum += b - a;
    }
    return sum;
  }
}

/** What a StallMonitor saw during an interval. */
export interface Stalls {
  /** ms in which the event loop ran nothing else (late timers past `minStallMs`). */
  stalledMs: number;
  /** ms of garbage collection pauses (a part of `stalledMs` when they were long enough to delay the timer). */
  gcMs: number;
}

/** Options of a StallMonitor. */
export interface StallMonitorOptions {
  /** How often the timer is meant to fire (default 20 ms). */
  intervalMs?: number;
  /** A timer later than this counts as a stall (default 50 ms). */
  minStallMs?: number;
  /** GC pauses shorter than this are not kept (default 2 ms). */
  minGcMs?: number;
  /** How many stalls and pauses of each kind are kept (default 4,096). */
  capacity?: number;
}

/** Watches the event loop and the garbage collector until `stop()`. */
export class StallMonitor {
  private readonly stalls: IntervalRing;
  private readonly gcs: IntervalRing;
  private readonly timer: NodeJS.Timeout;
  private readonly observer: PerformanceObserver;

  constructor(opts: StallMonitorOptions = {}) {
    const intervalMs = opts.intervalMs ?? 20;
    const minStallMs = opts.minStallMs ?? 50;
    const minGcMs = opts.minGcMs ?? 2;
    const capacity = opts.capacity ?? 4096;
    this.stalls = new IntervalRing(capacity);
    this.gcs = new IntervalRing(capacity);
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      const late = now - last - intervalMs;
      if (late >= minStallMs) this.stalls.add({ from: now - late, to: now });
      last = now;
    }, intervalMs);
    this.timer.unref();
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (e.duration >= minGcMs) this.gcs.add({ from: e.startTime, to: e.startTime + e.duration });
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** The stalls and GC pauses within [from, to] (performance.now() times). */
  during(from: number, to: number): Stalls {
    return { stalledMs: this.stalls.overlap(from, to), gcMs: this.gcs.overlap(from, to) };
  }

  /** Stops the timer and the GC observer. */
  stop(): void {
    clearInterval(this.timer);
    this.observer.disconnect();
  }
}
