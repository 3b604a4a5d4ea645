/**
 * The window of recent events, sized like upstream's watchCache: capacity
 * starts at the lower bound and doubles (up to the upper bound) whenever the
 * window is full while its oldest event is younger than eventFreshDuration
 * (75 s), and halves when even the newest quarter is older than that. So it
 * keeps at least 75 s of history unless that would exceed the upper bound.
 */
import { EVENT_OVERHEAD_BYTES, type SheddableHistory, type WatchCacheMemoryBudget } from './memory_budget.js';
import type { WatchCacheEvent } from './watch_cache_event.js';

/** Bytes one event keeps alive: the superseded version it holds (the new one is the state's or a later event's). */
const eventBytes = (ev: WatchCacheEvent): number => EVENT_OVERHEAD_BYTES + (ev.prev?.size ?? 0);

/** Window sizing, upstream's defaults. */
export interface WindowSizing {
  /** Minimum history to keep, in ms (upstream's eventFreshDuration, 75 s). */
  eventFreshDurationMs: number;
  /** Capacity never drops below this (100). */
  lowerBoundCapacity: number;
  /** Capacity never grows past this (100 * 1024). */
  upperBoundCapacity: number;
}

/** Upstream's defaults: 75 s, 100 .. 102,400 events. */
export const DEFAULT_WINDOW_SIZING: WindowSizing = {
  eventFreshDurationMs: 75_000,
  lowerBoundCapacity: 100,
  upperBoundCapacity: 100 * 1024,
};

/**
 * An ordered, bounded, adaptively sized queue of events. Under a memory budget
 * (--watch-cache-max-bytes) it also counts the bytes its events keep alive and
 * gives up its oldest ones when the budget asks.
 */
export class EventWindow implements SheddableHistory {
  private events: WatchCacheEvent[] = [];
  private head = 0;
  private cap: number;
  /** Every event with a revision above this is in the window. */
  private floor: number;
  private bytes = 0;
  /** Events given up to the memory budget. */
  shedEvents = 0;

  constructor(
    private readonly sizing: WindowSizing,
    startRevision: number,
    private readonly budget?: WatchCacheMemoryBudget,
  ) {
    this.cap = sizing.lowerBoundCapacity;
    this.floor = startRevision;
    budget?.register(this);
  }

  /** Bytes the window's events keep alive (counted only under a memory budget). */
  get historyBytes(): number {
    return this.bytes;
  }

  /** Drops the oldest events until `bytes` are freed or the window is empty (the memory budget's shedding). */
  shedOldest(bytes: number): number {
    const before = this.bytes;
    let n = 0;
    while (this.length > 0 && before - this.bytes < bytes) {
      this.dropOldest();
      n++;
    }
    this.shedEvents += n;
    return n;
  }

  /** Leaves the budget, giving back what the window counted (its cache is stopping). */
  release(): void {
    if (this.budget === undefined) return;
    this.budget.add(-this.bytes);
    this.bytes = 0;
    this.budget.unregister(this);
  }

  /** Current capacity, for apiserver_watch_cache_capacity. */
  get capacity(): number {
    return this.cap;
  }

  /** Events held. */
  get length(): number {
    return this.events.length - this.head;
  }

  /** The oldest revision a watch may start from: every later event is still here. */
  get oldestRevision(): number {
    return this.floor;
  }

  /** Empties the window after a re-list at `revision`. */
  reset(revision: number): void {
    if (this.budget !== undefined) {
      this.budget.add(-this.bytes);
      this.bytes = 0;
    }
    this.events = [];
    this.head = 0;
    this.floor = revision;
  }

  /** Appends an event (revisions must increase), resizing or evicting the oldest as upstream does. */
  push(ev: WatchCacheEvent, now: number): void {
    this.resize(now);
    if (this.length >= this.cap) this.dropOldest();
    this.events.push(ev);
    if (this.budget !== undefined) {
      const b = eventBytes(ev);
      this.bytes += b;
      this.budget.add(b);
      this.budget.enforce();
    }
  }

  /** Evicts the oldest event: the window now starts at its revision. */
  private dropOldest(): void {
    const ev = this.events[this.head];
    this.floor = ev.revision;
    this.events[this.head++] = undefined as unknown as WatchCacheEvent; // let it be collected
    if (this.budget !== undefined) {
      const b = eventBytes(ev);
      this.bytes -= b;
      this.budget.add(-b);
    }
    if (this.head > 4096 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** The index (absolute, for `at`) of the first event with revision > `revision`. */
  firstAfter(revision: number): number {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The end index for iteration with `at`. */
  get end(): number {
    return this.events.length;
  }

  /** The event at an absolute index from firstAfter. */
  at(i: number): WatchCacheEvent {
    return this.events[i];
  }

  /** Every event with revision > `revision`, oldest first; the caller checks `oldestRevision` first. */
  since(revision: number): WatchCacheEvent[] {
    return this.events.slice(this.firstAfter(revision));
  }

  private resize(now: number): void {
    if (this.length < this.cap) return;
    const { eventFreshDurationMs: fresh, lowerBoundCapacity: lo, upperBoundCapacity: hi } = this.sizing;
    const oldest = this.events[this.head];
    if (now - oldest.recordTime < fresh) {
      this.cap = Math.min(this.cap * 2, hi);
      return;
    }
    const quarter = this.events[this.events.length - Math.floor(this.cap / 4)];
    if (quarter !== undefined && now - quarter.recordTime > fresh && this.cap > lo) {
      const next = Math.max(Math.floor(this.cap / 2), lo);
      // Shrinking drops the oldest events beyond the new capacity.
      while (this.length > next) this.dropOldest();
      this.cap = next;
    }
  }
}
