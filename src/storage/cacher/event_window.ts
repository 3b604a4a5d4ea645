/**
 * The window of recent events, sized like upstream's watchCache: capacity
 * starts at the lower bound and doubles (up to the upper bound) whenever the
 * window is full while its oldest event is younger than eventFreshDuration
 * (75 s), and halves when even the newest quarter is older than that. So it
 * keeps at least 75 s of history unless that would exceed the upper bound.
 */
import type { WatchCacheEvent } from './watch_cache_event.js';

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

/** An ordered, bounded, adaptively sized queue of events. */
export class EventWindow {
  private events: WatchCacheEvent[] = [];
  private head = 0;
  private cap: number;
  /** Every event with a revision above this is in the window. */
  private floor: number;

  constructor(
    private readonly sizing: WindowSizing,
    startRevision: number,
  ) {
    this.cap = sizing.lowerBoundCapacity;
    this.floor = startRevision;
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
    this.events = [];
    this.head = 0;
    this.floor = revision;
  }

  /** Appends an event (revisions must increase), resizing or evicting the oldest as upstream does. */
  push(ev: WatchCacheEvent, now: number): void {
    this.resize(now);
    if (this.length >= this.cap) {
      this.floor = this.events[this.head].revision;
      this.events[this.head++] = undefined as unknown as WatchCacheEvent; // let it be collected
      if (this.head > 4096 && this.head * 2 > this.events.length) {
        this.events = this.events.slice(this.head);
        this.head = 0;
      }
    }
    this.events.push(ev);
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
      while (this.length > next) {
        this.floor = this.events[this.head].revision;
        this.events[this.head++] = undefined as unknown as WatchCacheEvent;
      }
      this.cap = next;
    }
  }
}
