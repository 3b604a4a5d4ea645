/**
 * A Watcher backed by a bounded in-memory queue. Producers push events in
 * order; the consumer reads them with `for await`. A consumer that falls more
 * than `capacity` events behind is cut off with TooSlow, like the cacher's
 * slow-watcher termination, so one slow reader never holds memory unbounded.
 */
import { StorageError } from './errors.js';
import type { WatchEvent, Watcher } from './interface.js';

export class WatchChannel implements Watcher {
  private queue: WatchEvent[] = [];
  private head = 0;
  private waiting: ((r: IteratorResult<WatchEvent>) => void) | null = null;
  private waitingReject: ((e: unknown) => void) | null = null;
  private ended = false;
  private failure: unknown = null;
  private onStop: (() => void) | null;

  constructor(
    private readonly capacity = 100_000,
    onStop?: () => void,
  ) {
    this.onStop = onStop ?? null;
  }

  /** Buffered events not yet read. */
  get length(): number {
    return this.queue.length - this.head;
  }

  /** Whether the channel has ended (stopped, failed or closed). */
  get closed(): boolean {
    return this.ended;
  }

  /** Appends one event; returns false when the channel has ended. */
  push(ev: WatchEvent): boolean {
    if (this.ended) return false;
    if (this.waiting !== null) {
      const w = this.waiting;
      this.waiting = this.waitingReject = null;
      w({ value: ev, done: false });
      return true;
    }
    if (this.length >= this.capacity) {
      this.fail(new StorageError('TooSlow', `watcher fell more than ${this.capacity} events behind`));
      return false;
    }
    this.queue.push(ev);
    return true;
  }

  /** Ends the stream with an error that the consumer's loop throws after draining buffered events. */
  fail(err: unknown): void {
    if (this.ended) return;
    this.failure = err;
    this.finish();
  }

  /** Ends the stream cleanly after buffered events. */
  stop(): void {
    if (this.ended) return;
    this.finish();
  }

  private finish(): void {
    this.ended = true;
    const stop = this.onStop;
    this.onStop = null;
    if (stop !== null) stop();
    if (this.waiting !== null && this.length === 0) {
      const w = this.waiting;
      const r = this.waitingReject!;
      this.waiting = this.waitingReject = null;
      if (this.failure !== null) r(this.failure);
      else w({ value: undefined, done: true });
    }
  }

  private next(): Promise<IteratorResult<WatchEvent>> {
    if (this.length > 0) {
      const ev = this.queue[this.head]!;
      // Let go of each event as it is read: a consumed event left in the array kept its value Buffers until
      // 1,024 more had passed (seconds under load), so they were promoted and died in the old generation.
      (this.queue as (WatchEvent | undefined)[])[this.head++] = undefined;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value: ev, done: false });
    }
    if (this.ended) {
      if (this.failure !== null) {
        const f = this.failure;
        this.failure = null;
        return Promise.reject(f instanceof Error ? f : new Error(`watch failed: ${JSON.stringify(f)}`));
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.waitingReject = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
