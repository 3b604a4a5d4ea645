/**
 * One priority level's fair queuing, like upstream's
 * fairqueuing/queueset: a request is shuffle-sharded onto the shortest queue
 * of its flow's hand, and queues take turns by virtual time (seat-seconds),
 * so each backlogged queue gets an equal share of the level's seats whatever
 * its arrival rate. A request is rejected when its queue is full, or when it
 * has waited its whole queue-wait budget.
 *
 * A write's final seats (its watch notifications) are given back at their
 * time, as upstream's Go timer does, even when the event loop is too busy to
 * run the timer: every start and dispatch first gives back the holds that are
 * due. Under load a timer of 5 ms here fires after the turn, hundreds of ms
 * later, and the level would sit on seats no request uses.
 */
import type { Clock, Timer } from '../../clock/index.js';
import { Dealer } from './shuffle_sharding.js';

/** The seats and time a request is expected to take (upstream's WorkEstimate). */
export interface WorkEstimate {
  /** Seats held while the handler runs. */
  initialSeats: number;
  /** Seats held for `additionalLatencyMs` after it returns (watch notifications of a write). */
  finalSeats: number;
  additionalLatencyMs: number;
}

/** The queuing parameters of a Limited level; queues 0 means Reject. */
export interface QueuingConfig {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** Why a request was not served, as upstream's rejected_requests_total `reason` label. */
export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

/**
 * A request admitted to execute: call `finish` once its handler returns. A write with final seats holds them
 * for its extra latency after that; `finish` returns how many it holds (0 for none) and calls `released` when
 * they are back.
 */
export interface Ticket {
  /** Milliseconds it waited in its queue. */
  waitedMs: number;
  finish: (released?: () => void) => number;
}

/** The outcome of `start`: executing now, waiting (settles with a ticket or a reject reason), or rejected. */
export type StartResult =
  { ticket: Ticket } | { waiting: Promise<Ticket | RejectReason>; cancel: () => void } | { rejected: RejectReason };

// Upstream's estimated service duration of a request, the unit of work in virtual time.
const ESTIMATED_SERVICE_MS = 3;

interface Request {
  seats: number;
  work: WorkEstimate;
  queue: Queue;
  arrived: number;
  timer: Timer | undefined;
  settle: (r: Ticket | RejectReason) => void;
}

interface Queue {
  index: number;
  waiting: Request[];
  head: number;
  /** Virtual time at which the head may start. */
  nextDispatchR: number;
  seatsInUse: number;
  executing: number;
  waitingWork: number;
}

const waitingCount = (q: Queue): number => q.waiting.length - q.head;

/** Final seats held after a request returned, until `at` (the clock's monotonic ms). */
interface Hold {
  at: number;
  /** Gives the seats back (once; later calls do nothing) without dispatching. */
  release: () => void;
}

/** The fair queues of one priority level. */
export class QueueSet {
  private queues: Queue[] = [];
  private dealer: Dealer | undefined;
  private readonly hands = new Map<number, number[]>();
  private concurrencyLimit: number;
  private currentR = 0;
  private lastRealTime: number;
  private activeQueues = 0;
  /** Seats of executing requests (a Reject level counts here too). */
  seatsInUse = 0;
  requestsExecuting = 0;
  requestsWaiting = 0;
  private seatsWaiting = 0;
  private robin = 0;
  private peakDemand = 0;
  /** Final seats still held, earliest `at` first. */
  private holds: Hold[] = [];

  constructor(
    private readonly clock: Clock,
    config: QueuingConfig,
    concurrencyLimit: number,
  ) {
    this.concurrencyLimit = concurrencyLimit;
    this.lastRealTime = clock.monotonic();
    this.setConfig(config);
  }

  /** Applies new queuing parameters; waiting requests stay where they are. */
  setConfig(config: QueuingConfig): void {
    this.config = config;
    this.hands.clear();
    this.dealer = config.queues > 0 ? new Dealer(config.queues, Math.min(config.handSize, config.queues)) : undefined;
    while (this.queues.length < config.queues)
      this.queues.push({
        index: this.queues.length,
        waiting: [],
        head: 0,
        nextDispatchR: this.currentR,
        seatsInUse: 0,
        executing: 0,
        waitingWork: 0,
      });
  }
  private config!: QueuingConfig;

  /** The level's current seats. */
  get limit(): number {
    return this.concurrencyLimit;
  }

  /** Changes the level's seats (borrowing, or a new configuration) and dispatches what now fits. */
  setConcurrencyLimit(limit: number): void {
    this.concurrencyLimit = limit;
    this.dispatch();
  }

  /** The queues' lengths, seats in use and virtual start times, for the debug dump. */
  dumpQueues(): { index: number; waiting: number; executing: number; seatsInUse: number; nextDispatchR: number }[] {
    return this.queues.map((q) => ({
      index: q.index,
      waiting: waitingCount(q),
      executing: q.executing,
      seatsInUse: q.seatsInUse,
      nextDispatchR: q.nextDispatchR,
    }));
  }

  /** The most seats asked for at once (executing plus waiting) since the last call; restarts the count. */
  takePeakDemand(): number {
    const peak = Math.max(this.peakDemand, this.seatsInUse + this.seatsWaiting);
    this.peakDemand = this.seatsInUse + this.seatsWaiting;
    return peak;
  }

  /** Asks to run one request of the flow with `hash`; `waitBudgetMs` bounds its time in a queue. */
  start(hash: number, work: WorkEstimate, waitBudgetMs: number): StartResult {
    // Seats given back go first to the requests already waiting.
    if (this.releaseDue()) this.dispatch();
    this.advanceR();
    const seats = Math.max(1, work.initialSeats);
    this.peakDemand = Math.max(this.peakDemand, this.seatsInUse + this.seatsWaiting + seats);
    if (this.dealer === undefined) {
      if (this.seatsInUse + seats > this.concurrencyLimit && this.seatsInUse > 0)
        return { rejected: 'concurrency-limit' };
      return { ticket: this.run(undefined, seats, work, 0) };
    }
    const queue = this.chooseQueue(hash);
    // Nothing waiting and room now: run at once, charging the queue its virtual time.
    if (this.requestsWaiting === 0 && (this.seatsInUse + seats <= this.concurrencyLimit || this.seatsInUse === 0)) {
      this.activate(queue);
      queue.nextDispatchR = Math.max(queue.nextDispatchR, this.currentR) + this.totalWork(work, seats);
      return { ticket: this.run(queue, seats, work, 0) };
    }
    if (waitingCount(queue) >= this.config.queueLengthLimit) return { rejected: 'queue-full' };
    let settle!: (r: Ticket | RejectReason) => void;
    const waiting = new Promise<Ticket | RejectReason>((resolve) => (settle = resolve));
    const r: Request = { seats, work, queue, arrived: this.clock.monotonic(), timer: undefined, settle };
    this.activate(queue);
    if (waitingCount(queue) === 0 && queue.executing === 0)
      queue.nextDispatchR = Math.max(queue.nextDispatchR, this.currentR);
    queue.waiting.push(r);
    queue.waitingWork += this.totalWork(work, seats);
    this.requestsWaiting++;
    this.seatsWaiting += seats;
    if (waitBudgetMs > 0) r.timer = this.clock.setTimeout(() => this.cancel(r, 'time-out'), waitBudgetMs);
    this.dispatch();
    return { waiting, cancel: () => this.cancel(r, 'cancelled') };
  }

  /** Takes a waiting request out of its queue (its wait budget ran out, or its client went away). */
  private cancel(r: Request, reason: RejectReason): void {
    const q = r.queue;
    const i = q.waiting.indexOf(r, q.head);
    if (i < 0) return;
    q.waiting.splice(i, 1);
    this.dequeued(q, r);
    this.deactivateIfIdle(q);
    r.settle(reason);
  }

  private dequeued(q: Queue, r: Request): void {
    r.timer?.cancel();
    q.waitingWork -= this.totalWork(r.work, r.seats);
    this.requestsWaiting--;
    this.seatsWaiting -= r.seats;
  }

  private totalWork(work: WorkEstimate, seats: number): number {
    return seats * ESTIMATED_SERVICE_MS + work.finalSeats * work.additionalLatencyMs;
  }

  private chooseQueue(hash: number): Queue {
    let hand = this.hands.get(hash);
    if (hand === undefined) {
      hand = this.dealer!.deal(hash);
      if (this.hands.size > 10_000) this.hands.clear();
      this.hands.set(hash, hand);
    }
    let best: Queue | undefined;
    let bestWork = Infinity;
    for (const i of hand) {
      const q = this.queues[i]!;
      const w = q.waitingWork + q.seatsInUse * ESTIMATED_SERVICE_MS;
      if (w < bestWork) {
        best = q;
        bestWork = w;
      }
    }
    return best!;
  }

  /** Moves virtual time on: each active queue advances at min(seats asked, limit) / active queues per second. */
  private advanceR(): void {
    const now = this.clock.monotonic();
    const dt = now - this.lastRealTime;
    this.lastRealTime = now;
    if (dt <= 0 || this.activeQueues === 0) return;
    const asked = Math.min(this.seatsInUse + this.seatsWaiting, this.concurrencyLimit);
    this.currentR += (dt * asked) / this.activeQueues;
  }

  private activate(q: Queue): void {
    if (waitingCount(q) === 0 && q.executing === 0) this.activeQueues++;
  }

  private deactivateIfIdle(q: Queue): void {
    if (waitingCount(q) === 0 && q.executing === 0) {
      this.activeQueues--;
      q.waiting.length = 0;
      q.head = 0;
    }
  }

  /** Starts waiting requests while the next one (the queue earliest in virtual time) fits. */
  private dispatch(): void {
    this.releaseDue();
    this.advanceR();
    while (this.requestsWaiting > 0) {
      const q = this.nextQueue();
      const r = q.waiting[q.head]!;
      if (this.seatsInUse + r.seats > this.concurrencyLimit && this.seatsInUse > 0) return;
      q.waiting[q.head] = undefined as unknown as Request;
      q.head++;
      if (q.head > 64 && q.head * 2 > q.waiting.length) {
        q.waiting = q.waiting.slice(q.head);
        q.head = 0;
      }
      this.dequeued(q, r);
      q.nextDispatchR += this.totalWork(r.work, r.seats);
      r.settle(this.run(q, r.seats, r.work, this.clock.monotonic() - r.arrived));
    }
  }

  /** Keeps `h` in `holds` in order of `at` (holds are few: each has at least one of the level's seats). */
  private addHold(h: Hold): void {
    let i = this.holds.length;
    while (i > 0 && this.holds[i - 1]!.at > h.at) i--;
    this.holds.splice(i, 0, h);
  }

  /** Gives back every hold that is due, whether or not its timer has run; true if there was one. */
  private releaseDue(): boolean {
    if (this.holds.length === 0) return false;
    const now = this.clock.monotonic();
    let n = 0;
    while (n < this.holds.length && this.holds[n]!.at <= now) n++;
    if (n === 0) return false;
    for (const h of this.holds.splice(0, n)) h.release();
    return true;
  }

  private nextQueue(): Queue {
    let best: Queue | undefined;
    const n = this.queues.length;
    for (let k = 0; k < n; k++) {
      const q = this.queues[(this.robin + k) % n]!;
      if (waitingCount(q) === 0) continue;
      if (best === undefined || q.nextDispatchR < best.nextDispatchR) best = q;
    }
    this.robin = (best!.index + 1) % n;
    return best!;
  }

  private run(q: Queue | undefined, seats: number, work: WorkEstimate, waitedMs: number): Ticket {
    this.seatsInUse += seats;
    this.requestsExecuting++;
    if (q !== undefined) {
      q.seatsInUse += seats;
      q.executing++;
    }
    const started = this.clock.monotonic();
    let done = false;
    let handlerMs = 0;
    const release = (held: number, thenDispatch = true): void => {
      this.advanceR();
      this.seatsInUse -= held;
      this.requestsExecuting--;
      if (q !== undefined) {
        q.seatsInUse -= held;
        q.executing--;
        // Like upstream, correct the queue's virtual time by what the request really took.
        q.nextDispatchR += seats * (handlerMs - ESTIMATED_SERVICE_MS);
        this.deactivateIfIdle(q);
      }
      if (thenDispatch) this.dispatch();
    };
    return {
      waitedMs,
      finish: (released) => {
        if (done) return 0;
        done = true;
        handlerMs = Math.max(0, this.clock.monotonic() - started);
        const extra = work.finalSeats > 0 && work.additionalLatencyMs > 0;
        if (!extra) {
          release(seats);
          return 0;
        }
        // The watchers' notifications: the final seats stay taken for the extra latency.
        const delta = work.finalSeats - seats;
        this.seatsInUse += delta;
        if (q !== undefined) q.seatsInUse += delta;
        let held = true;
        const hold: Hold = {
          at: this.clock.monotonic() + work.additionalLatencyMs,
          release: () => {
            if (!held) return;
            held = false;
            timer.cancel();
            release(work.finalSeats, false);
            released?.();
          },
        };
        const timer = this.clock.setTimeout(() => {
          const i = this.holds.indexOf(hold);
          if (i >= 0) this.holds.splice(i, 1);
          hold.release();
          this.dispatch();
        }, work.additionalLatencyMs);
        this.addHold(hold);
        return work.finalSeats;
      },
    };
  }
}
