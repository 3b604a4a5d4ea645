/**
 * WorkQueue, like client-go's util/workqueue Type: a FIFO of keys that
 * - dedups: a key added many times before it is processed is processed once;
 * - never hands one key to two workers at once: a key added while being
 *   processed is parked (dirty) and re-queued when the worker calls done().
 * Shutdown stops new adds; shutDownWithDrain also waits for queued and
 * in-flight keys to finish.
 */

/** A FIFO work queue of keys with dedup and per-key mutual exclusion. */
export class WorkQueue<T = string> {
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private waiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private shutting = false;

  /** Queues `item` unless it is already queued; an item being processed is queued again after done(). */
  add(item: T): void {
    if (this.shutting || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.waiters.shift()?.();
  }

  /** Items waiting (not counting those being processed). */
  len(): number {
    return this.queue.length - this.head;
  }

  /** Waits for the next item and marks it processing; undefined once shut down and empty. Call done() after. */
  async get(): Promise<T | undefined> {
    while (this.len() === 0) {
      if (this.shutting) return undefined;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    const item = this.queue[this.head]!;
    this.head++;
    // Compact occasionally so a long-lived queue does not keep a huge consumed prefix.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  /** Marks `item` finished; if it was added meanwhile, it is queued again now. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      this.queue.push(item);
      this.waiters.shift()?.();
    }
    this.checkDrained();
  }

  /** Stops accepting items; workers get the items still queued, then undefined. */
  shutDown(): void {
    this.shutting = true;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
    this.checkDrained();
  }

  /** Shuts down and resolves once every queued and in-flight item is done. */
  async shutDownWithDrain(): Promise<void> {
    const drained = new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    this.shutDown();
    await drained;
  }

  /** True after shutDown. */
  shuttingDown(): boolean {
    return this.shutting;
  }

  /** True while `item` is held by a worker. */
  isProcessing(item: T): boolean {
    return this.processing.has(item);
  }

  private checkDrained(): void {
    if (!this.shutting || this.len() > 0 || this.processing.size > 0 || this.drainWaiters.length === 0) return;
    const ws = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of ws) w();
  }
}
