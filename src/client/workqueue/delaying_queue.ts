/**
 * DelayingQueue, like client-go's workqueue.DelayingInterface: addAfter puts
 * a key in the queue once a delay passes, on the injected Clock. A key
 * waiting twice keeps the earlier deadline, as upstream's waitingForQueue does.
 */
import { RealClock, type Clock, type Timer } from '../../clock/index.js';
import { WorkQueue, type WorkQueueOptions } from './queue.js';

/** A WorkQueue with delayed adds. */
export class DelayingQueue<T = string> extends WorkQueue<T> {
  readonly clock: Clock;
  private readonly waiting = new Map<T, { at: number; timer: Timer }>();

  constructor(opts: WorkQueueOptions = {}) {
    const clock = opts.clock ?? new RealClock();
    super({ ...opts, clock });
    this.clock = clock;
  }

  /** Adds `item` after `ms` milliseconds (at once when ms <= 0). */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown()) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const at = this.clock.monotonic() + ms;
    const prev = this.waiting.get(item);
    if (prev !== undefined) {
      if (prev.at <= at) return;
      prev.timer.cancel();
    }
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, ms);
    this.waiting.set(item, { at, timer });
  }

  /** Items waiting for their delay to pass. */
  waitingLen(): number {
    return this.waiting.size;
  }

  override shutDown(): void {
    for (const w of this.waiting.values()) w.timer.cancel();
    this.waiting.clear();
    super.shutDown();
  }
}
