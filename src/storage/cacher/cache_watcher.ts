/**
 * One watcher of the cache (upstream's cacheWatcher). Initial events (a
 * replay from the window, or synthetic ADDED events for the current state)
 * are converted lazily as the consumer reads them, then live events follow.
 * The live queue is bounded: a watcher whose queue stays at capacity longer
 * than its time budget is closed with TooSlow, never fed a gap, and dispatch
 * never waits for it, so one slow client cannot delay the others.
 */
import type { Clock, Timer } from '../../clock/index.js';
import { StorageError } from '../errors.js';
import type { Pushable, WatchSink } from '../watch_sink.js';

/** Initial items consumed before the live queue, converted on read. */
interface InitialSource<T> {
  items: readonly unknown[];
  pos: number;
  convert: (item: unknown) => T | null;
}

/** Flow-control settings of a watcher. */
export interface CacheWatcherLimits {
  /** Live events buffered before the watcher counts as blocked. */
  capacity: number;
  /** How long the queue may stay full before the watcher is closed with TooSlow. */
  budgetMs: number;
  /** A hard ceiling (events) past which the watcher is closed at once, bounding memory. */
  hardLimit: number;
}

/**
 * A bounded, ordered stream of T for one consumer, read either with
 * `for await` or by push through consume(). Push holds no promise or
 * suspended function per idle watcher, which matters at ~100,000 watches.
 */
export class CacheWatcher<T> implements AsyncIterable<T>, Pushable<T> {
  private queue: T[] = [];
  private head = 0;
  private initial: InitialSource<T>[] = [];
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | null = null;
  private ended = false;
  private failure: unknown = null;
  private blockedSince = -1;
  private budgetTimer: Timer | null = null;
  private sink: WatchSink<T> | null = null;
  private paused = false;
  private draining = false;
  /** A dispatch sequence number, so an event routed twice (old and new index value) is delivered once. */
  lastDispatch = -1;
  /** Clock time of the last item queued, for progress throttling. */
  lastSent: number;

  /**
   * What its owner filed it under (the Cacher's registration), read back by a shared `onEnd`: a closure per
   * watcher would cost the server an object and a context per open watch (~127,000 at 2,500 nodes).
   */
  registration: unknown = undefined;

  constructor(
    private readonly clock: Clock,
    private readonly limits: CacheWatcherLimits,
    private readonly onEnd: (tooSlow: boolean, w: CacheWatcher<unknown>) => void,
  ) {
    this.lastSent = clock.now();
  }

  /** Whether the watcher has ended. */
  get closed(): boolean {
    return this.ended;
  }

  /** Live items queued and unread. */
  get length(): number {
    return this.queue.length - this.head;
  }

  /** Whether the live queue is at capacity (bookmarks are skipped then). */
  get blocked(): boolean {
    return this.length >= this.limits.capacity;
  }

  /** Queues items to deliver before any live item (call before the first add). */
  addInitial<S>(items: readonly S[], convert: (item: S) => T | null): void {
    if (items.length === 0 || this.ended) return;
    this.initial.push({ items, pos: 0, convert: convert as (item: unknown) => T | null });
    if (this.sink !== null) return this.drain();
    // The consumer may already be parked on an empty stream.
    const w = this.waiting;
    if (w === null) return;
    const next = this.take();
    if (next === undefined) return;
    this.waiting = null;
    w.resolve({ value: next.v, done: false });
  }

  /** Queues one live item; closes the watcher with TooSlow when it has been blocked too long. */
  push(item: T): void {
    if (this.ended) return;
    this.lastSent = this.clock.now();
    if (this.sink !== null && !this.paused && !this.draining && this.initial.length === 0 && this.length === 0) {
      if (!this.sink.item(item)) this.paused = true;
      return;
    }
    if (this.waiting !== null && this.initial.length === 0) {
      const w = this.waiting;
      this.waiting = null;
      w.resolve({ value: item, done: false });
      return;
    }
    const n = this.length;
    if (n >= this.limits.hardLimit) return this.tooSlow();
    if (n >= this.limits.capacity) {
      if (this.blockedSince < 0) {
        this.blockedSince = this.clock.now();
        this.budgetTimer = this.clock.setTimeout(() => this.checkBudget(), this.limits.budgetMs);
      } else if (this.clock.now() - this.blockedSince >= this.limits.budgetMs) {
        return this.tooSlow();
      }
    }
    this.queue.push(item);
  }

  /** Ends the stream with an error thrown after buffered items. */
  fail(err: unknown): void {
    if (this.ended) return;
    this.failure = err;
    this.finish(false);
  }

  /** Ends the stream cleanly after buffered items. */
  stop(): void {
    if (!this.ended) this.finish(false);
  }

  private tooSlow(): void {
    if (this.ended) return;
    // Like upstream: drop what is buffered, since delivering it and then ending would look like a clean close.
    this.queue = [];
    this.head = 0;
    this.initial = [];
    this.failure = new StorageError(
      'TooSlow',
      `watcher could not keep up: its buffer of ${this.limits.capacity} stayed full for ${this.limits.budgetMs} ms`,
    );
    this.finish(true);
  }

  private checkBudget(): void {
    this.budgetTimer = null;
    if (this.blockedSince >= 0 && this.length >= this.limits.capacity) this.tooSlow();
  }

  private finish(tooSlow: boolean): void {
    this.ended = true;
    this.budgetTimer?.cancel();
    this.budgetTimer = null;
    this.onEnd(tooSlow, this as CacheWatcher<unknown>);
    if (this.sink !== null) return this.drain();
    if (this.waiting !== null) {
      const w = this.waiting;
      this.waiting = null;
      this.settle(w);
    }
  }

  private settle(w: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }): void {
    const next = this.take();
    if (next !== undefined) w.resolve({ value: next.v, done: false });
    else if (this.failure !== null) {
      const f = this.failure;
      this.failure = null;
      w.reject(f);
    } else w.resolve({ value: undefined, done: true });
  }

  /** The next item, initial ones first; undefined when none is buffered. */
  private take(): { v: T } | undefined {
    while (this.initial.length > 0) {
      const src = this.initial[0];
      while (src.pos < src.items.length) {
        const v = src.convert(src.items[src.pos++]);
        if (v !== null) return { v };
      }
      this.initial.shift();
    }
    if (this.length === 0) return undefined;
    const v = this.queue[this.head];
    this.queue[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.blockedSince >= 0 && this.length < this.limits.capacity) {
      this.blockedSince = -1;
      this.budgetTimer?.cancel();
      this.budgetTimer = null;
    }
    return { v };
  }

  /** Feeds every item to `sink` from now on, instead of an iterator (use one or the other). */
  consume(sink: WatchSink<T>): void {
    this.sink = sink;
    this.drain();
  }

  /** After the sink returned false: delivers what is buffered, and the end if it came. */
  resume(): void {
    this.paused = false;
    this.drain();
  }

  private drain(): void {
    const sink = this.sink;
    if (sink === null || this.paused || this.draining) return;
    this.draining = true;
    try {
      for (let next = this.take(); next !== undefined; next = this.take()) {
        if (!sink.item(next.v)) {
          this.paused = true;
          return;
        }
      }
      if (this.ended) {
        this.sink = null;
        const f = this.failure;
        this.failure = null;
        if (f === null) sink.end();
        else sink.end(f);
      }
    } finally {
      this.draining = false;
    }
  }

  private next(): Promise<IteratorResult<T>> {
    const item = this.take();
    if (item !== undefined) return Promise.resolve({ value: item.v, done: false });
    if (this.ended) {
      return new Promise((resolve, reject) => this.settle({ resolve, reject }));
    }
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
