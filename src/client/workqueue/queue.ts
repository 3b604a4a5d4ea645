/**
 * WorkQueue, like client-go's util/workqueue Type: a FIFO of keys that
 * - dedups: a key added many times before it is processed is processed once;
 * - never hands one key to two workers at once: a key added while being
 *   processed is parked (dirty) and re-queued when the worker calls done().
 * Shutdown stops new adds; shutDownWithDrain also waits for queued and
 * in-flight keys to finish.
 */

import { RealClock, type Clock } from '../../clock/index.js';
import { queueMetricsFor, type QueueMetrics } from './metrics.js';

/** Options of a WorkQueue. */
export interface WorkQueueOptions {
  /** Names the queue in the workqueue metrics (label `name`); unnamed queues record none. */
  name?: string;
  clock?: Clock;
}

/** A FIFO work queue of keys with dedup and per-key mutual exclusion. */
export class WorkQueue<T = string> {
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private waiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private shutting = false;
  private readonly metrics: QueueMetrics | undefined;
  private readonly metricsClock: Clock | undefined;
  /** With metrics: when each queued item was added, and when each processing item was taken. */
  private readonly addedAt = new Map<T, number>();
  private readonly startedAt = new Map<T, number>();

  constructor(opts: WorkQueueOptions = {}) {
    this.metrics = queueMetricsFor(opts.name);
    if (this.metrics !== undefined) {
      this.metricsClock = opts.clock ?? new RealClock();
      this.metrics.processing(() => this.startedAt.values());
    }
  }

  /** Queues `item` unless it is already queued; an item being processed is queued again after done(). */
  add(item: T): void {
    if (this.shutting || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.queued(item);
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
    if (this.metrics !== undefined) {
      const now = this.metricsClock!.now();
      this.metrics.get(now - (this.addedAt.get(item) ?? now));
      this.addedAt.delete(item);
      this.startedAt.set(item, now);
    }
    return item;
  }

  /** Marks `item` finished; if it was added meanwhile, it is queued again now. */
  done(item: T): void {
    this.processing.delete(item);
    if (this.metrics !== undefined) {
      const started = this.startedAt.get(item);
      if (started !== undefined) this.metrics.done(this.metricsClock!.now() - started);
      this.startedAt.delete(item);
    }
    if (this.dirty.has(item)) this.queued(item);
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

  /** Counts a retry in the workqueue metrics (addRateLimited calls it). */
  protected retried(): void {
    this.metrics?.retry();
  }

  private queued(item: T): void {
    if (this.metrics !== undefined) {
      this.metrics.add();
      this.addedAt.set(item, this.metricsClock!.now());
    }
    this.queue.push(item);
    this.waiters.shift()?.();
  }

  private checkDrained(): void {
    if (!this.shutting || this.len() > 0 || this.processing.size > 0 || this.drainWaiters.length === 0) return;
    const ws = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of ws) w();
  }
}
