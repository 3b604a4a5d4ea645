/**
 * Injected time, like k8s.io/utils/clock: every component that waits or
 * timestamps takes a Clock, and tests pass a FakeClock they step by hand
 * instead of sleeping.
 */

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch: for timestamps written into objects. It may jump when the host's clock is set. */
  now(): number;
  /**
   * Milliseconds on a clock that never jumps (performance.now(), like Go's
   * monotonic reading): for every elapsed-time measurement (grace periods,
   * lease expiry, backoff, rate limits, delays). Only differences mean anything.
   */
  monotonic(): number;
  /** Run `fn` once after `ms`. */
  setTimeout(fn: () => void, ms: number): Timer;
  /** Run `fn` every `ms`. */
  setInterval(fn: () => void, ms: number): Timer;
  /** Resolve after `ms`. */
  sleep(ms: number): Promise<void>;
}

/**
 * A Node timer as a Timer. A class, not a `{ cancel: () => … }` literal: the server keeps one per open watch
 * (~127,000 at 2,500 nodes), and a closure would add a function and its context to each.
 */
class NodeTimer implements Timer {
  constructor(private readonly t: NodeJS.Timeout) {}
  cancel(): void {
    // clearTimeout clears intervals too.
    clearTimeout(this.t);
  }
}

/** The wall clock, backed by Node's timers. Timers never hold the process open. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }
  monotonic(): number {
    return performance.now();
  }
  setTimeout(fn: () => void, ms: number): Timer {
    return new NodeTimer(setTimeout(fn, ms).unref());
  }
  setInterval(fn: () => void, ms: number): Timer {
    return new NodeTimer(setInterval(fn, ms).unref());
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

interface FakeTimer {
  at: number;
  every: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when `step` is called; due timers fire in time order. */
export class FakeClock implements Clock {
  private timers: FakeTimer[] = [];
  constructor(private time = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.time;
  }
  /** Timers run on this time, as Node's do on the monotonic clock. */
  monotonic(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): Timer {
    return this.add({ at: this.time + Math.max(0, ms), every: 0, fn, cancelled: false });
  }
  setInterval(fn: () => void, ms: number): Timer {
    return this.add({ at: this.time + Math.max(1, ms), every: Math.max(1, ms), fn, cancelled: false });
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }
  /** How many timers are waiting. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
  /** Move time forward by `ms` without firing timers, as a busy event loop leaves its timers late. */
  lag(ms: number): void {
    this.time += ms;
  }
  /** Move time forward by `ms`, firing every timer that falls due, in order. */
  step(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const next = this.timers.reduce<FakeTimer | undefined>(
        (a, t) => (a === undefined || t.at < a.at ? t : a),
        undefined,
      );
      if (next === undefined || next.at > end) break;
      this.time = Math.max(this.time, next.at);
      if (next.every > 0) next.at += next.every;
      else next.cancelled = true;
      next.fn();
    }
    this.time = end;
  }
  private add(t: FakeTimer): Timer {
    this.timers.push(t);
    return { cancel: () => (t.cancelled = true) };
  }
}
