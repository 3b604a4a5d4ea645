/**
 * One timer for a whole fleet: a min-heap of due times with a single clock
 * timer armed for the earliest, so 2,500 kubelets with two periodic loops each
 * cost one Node.js timer, not 5,000. Periodic work is "sliding" like upstream's
 * wait.JitterUntil(f, period, jitter, sliding=true): the next run is scheduled
 * only after the previous one finished, at period × (1 + jitter × rand).
 */
import type { Clock, Timer } from '../clock/index.js';

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A handle to a scheduled run or a periodic loop. */
export interface TaskHandle {
  cancel(): void;
}

/** Options of a periodic loop. */
export interface PeriodicOptions {
  /** Delay of the first run (default: a uniform random fraction of the period, to stagger loops). */
  initialDelayMs?: number;
  /** Upstream's jitter factor: each wait is period × (1 + jitter × random()). 0.04 for kubelet loops. */
  jitter?: number;
}

/** Schedules many one-shot and periodic tasks on one clock timer. */
export class TimerQueue {
  private heap: Entry[] = [];
  private seq = 0;
  private armed: { at: number; timer: Timer } | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  /** Tasks waiting (cancelled ones may still be counted until they come due). */
  get size(): number {
    return this.heap.length;
  }

  /** Runs `fn` once after `delayMs`. */
  after(delayMs: number, fn: () => void): TaskHandle {
    const e: Entry = { at: this.clock.now() + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    if (this.stopped) return { cancel: () => undefined };
    this.push(e);
    this.arm();
    return { cancel: () => void (e.cancelled = true) };
  }

  /** Runs `fn` every `periodMs` (sliding, jittered) until cancelled; a run's rejection is passed to `onError`. */
  every(
    periodMs: number,
    fn: () => Promise<void> | void,
    opts: PeriodicOptions = {},
    onError: (err: unknown) => void = () => undefined,
  ): TaskHandle {
    let cancelled = false;
    let current: TaskHandle | undefined;
    const jitter = opts.jitter ?? 0;
    const wait = (): number => periodMs * (1 + jitter * this.random());
    const run = (): void => {
      if (cancelled) return;
      let p: Promise<void> | void = undefined;
      try {
        p = fn();
      } catch (err) {
        onError(err);
      }
      const next = (): void => {
        if (!cancelled) current = this.after(wait(), run);
      };
      if (p instanceof Promise) p.catch(onError).finally(next);
      else next();
    };
    current = this.after(opts.initialDelayMs ?? this.random() * periodMs, run);
    return {
      cancel: () => {
        cancelled = true;
        current?.cancel();
      },
    };
  }

  /** Cancels everything and refuses new tasks. */
  stop(): void {
    this.stopped = true;
    this.armed?.timer.cancel();
    this.armed = undefined;
    this.heap = [];
  }

  private arm(): void {
    const top = this.heap[0];
    if (top === undefined || this.stopped) return;
    if (this.armed !== undefined && this.armed.at <= top.at) return;
    this.armed?.timer.cancel();
    const at = top.at;
    this.armed = { at, timer: this.clock.setTimeout(() => this.fire(), Math.max(0, at - this.clock.now())) };
  }

  private fire(): void {
    this.armed = undefined;
    const now = this.clock.now();
    // Run what is due now; tasks they schedule for "now" run on the next turn, so a zero delay cannot spin.
    const due: Entry[] = [];
    while (this.heap.length > 0 && this.heap[0]!.at <= now) due.push(this.pop());
    for (const e of due) {
      if (e.cancelled || this.stopped) continue;
      try {
        e.fn();
      } catch {
        // A task's own error handling is its business; one failure never stops the queue.
      }
    }
    this.arm();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
