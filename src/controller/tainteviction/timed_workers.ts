/**
 * TimedWorkerQueue, like tainteviction's timed_workers.go: one timer per pod
 * key that runs the work function when it fires (at once when already due).
 * A key whose work succeeded stays in the map, so it is not scheduled again
 * until cancelled; a failed key is dropped so a later event can retry it.
 */
import type { ClientLogger } from '../../client/index.js';
import type { Clock, Timer } from '../../clock/index.js';

/** One scheduled piece of work. */
export interface TimedWorker {
  key: string;
  createdAt: number;
  fireAt: number;
  timer: Timer | undefined;
}

/** Timers keyed by `namespace/name`, on the injected clock. */
export class TimedWorkerQueue {
  // undefined: never scheduled or cancelled; null: done (kept to block re-adds).
  private readonly workers = new Map<string, TimedWorker | null>();
  private inflight = 0;

  constructor(
    private readonly clock: Clock,
    private readonly work: (key: string, fireAt: number) => Promise<void>,
    private readonly log: ClientLogger,
  ) {}

  /** Schedules `key` at `fireAt` unless it is already scheduled or done. */
  addWork(key: string, createdAt: number, fireAt: number): void {
    if (this.workers.has(key)) return;
    const w: TimedWorker = { key, createdAt, fireAt, timer: undefined };
    this.workers.set(key, w);
    const delay = fireAt - this.clock.now();
    if (delay <= 0) this.fire(w);
    else w.timer = this.clock.setTimeout(() => this.fire(w), delay);
  }

  /** Cancels `key`'s work (or forgets that it ran); true when something was cancelled. */
  cancelWork(key: string): boolean {
    const w = this.workers.get(key);
    if (w === undefined) return false;
    w?.timer?.cancel();
    this.workers.delete(key);
    return w !== null;
  }

  /** The pending worker of `key`; null when its work already ran, undefined when none. */
  getWorkerUnsafe(key: string): TimedWorker | null | undefined {
    return this.workers.get(key);
  }

  /** Works running now. */
  get running(): number {
    return this.inflight;
  }

  /** Cancels every timer. */
  cancelAll(): void {
    for (const w of this.workers.values()) w?.timer?.cancel();
    this.workers.clear();
  }

  private fire(w: TimedWorker): void {
    w.timer = undefined;
    this.inflight++;
    void this.work(w.key, w.fireAt)
      .then(
        () => {
          if (this.workers.get(w.key) === w) this.workers.set(w.key, null);
        },
        (err: unknown) => {
          this.log.warn({ pod: w.key, err: String(err) }, 'timed work failed');
          if (this.workers.get(w.key) === w) this.workers.delete(w.key);
        },
      )
      .finally(() => this.inflight--);
  }
}
