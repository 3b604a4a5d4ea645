/**
 * The server's open watches, filed by the second their timeout passes, and
 * one timer that stops the ones due each second.
 *
 * A timer per watch cost the server, for each of the ~127,000 watches it holds
 * at 2,500 nodes, Node's Timeout and kscale's wrapper; and a watch whose
 * timeout the server randomized (none asked) had a TimersList of its own in a
 * priority queue, since Node groups timers by duration and no other watch had
 * that one. Each is objects for every mark-compact to walk. Here a watch is
 * one entry in a Set. It ends within a second after its timeout rather than at it;
 * upstream randomizes watch timeouts over 30 minutes (and client-go over 5).
 */
import type { Clock, Timer } from '../../clock/index.js';

/** A watch the server can stop: at its timeout, or at shutdown. */
export interface OpenWatch {
  stop(): void;
}

export class OpenWatches {
  /** Open watches by the second (of the clock's monotonic time) once past which they are stopped. */
  private readonly bySecond = new Map<number, Set<OpenWatch>>();
  private count = 0;
  private timer: Timer | undefined;

  constructor(private readonly clock: Clock) {}

  /** How many watches are open. */
  get size(): number {
    return this.count;
  }

  /** Files `w`, to be stopped once `timeoutMs` have passed; returns the key to delete it with. */
  add(w: OpenWatch, timeoutMs: number): number {
    const second = Math.ceil((this.clock.monotonic() + timeoutMs) / 1000);
    let set = this.bySecond.get(second);
    if (set === undefined) this.bySecond.set(second, (set = new Set()));
    set.add(w);
    this.count++;
    this.timer ??= this.nextTick();
    return second;
  }

  /** Unfiles a watch that ended (`key` is what add returned); a second delete does nothing. */
  delete(w: OpenWatch, key: number): void {
    const set = this.bySecond.get(key);
    if (set === undefined || !set.delete(w)) return;
    this.count--;
    if (set.size === 0) this.bySecond.delete(key);
  }

  /** Stops every open watch (shutdown); each unfiles itself as it ends. */
  stopAll(): void {
    for (const set of [...this.bySecond.values()]) for (const w of [...set]) w.stop();
  }

  /** Stops the timer (the watches stay filed). */
  close(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The next tick, just after the next whole second: a watch is stopped less than a second after its timeout. */
  private nextTick(): Timer {
    return this.clock.setTimeout(() => this.tick(), 1000 - (this.clock.monotonic() % 1000));
  }

  private tick(): void {
    const now = this.clock.monotonic() / 1000;
    // A Map iterates its keys in insertion order, not in order of time: look at each second filed (at most one
    // per second of the longest timeout ahead, ~3,600 under upstream's randomized 30–60 minutes).
    for (const [second, set] of this.bySecond) if (second <= now) for (const w of [...set]) w.stop();
    this.timer = this.count > 0 ? this.nextTick() : undefined;
  }
}
