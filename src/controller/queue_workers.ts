/**
 * QueueWorkers: a controller's work queue with its workers (runWorkers) and
 * a count of syncs in flight, so run/stop/isIdle are one line each in the
 * controllers that use it.
 */
import { runWorkers, type RateLimitingQueue, type RunWorkersOptions, type Workers } from '../client/index.js';

/** `n` workers calling `sync` for each key of `queue`. */
export class QueueWorkers<T> {
  private workers: Workers | undefined;
  private active = 0;

  constructor(
    readonly queue: RateLimitingQueue<T>,
    private readonly n: number,
    private readonly sync: (item: T) => Promise<void>,
    private readonly opts: RunWorkersOptions,
  ) {}

  /** Starts the workers. */
  run(): void {
    this.workers = runWorkers(
      this.queue,
      this.n,
      async (item) => {
        this.active++;
        try {
          await this.sync(item);
        } finally {
          this.active--;
        }
      },
      this.opts,
    );
  }

  /** Shuts the queue down and waits for in-flight syncs. */
  async stop(): Promise<void> {
    await this.workers?.stop();
  }

  /** True when no sync runs and no key is queued (delayed keys excepted). */
  isIdle(): boolean {
    return this.active === 0 && this.queue.len() === 0;
  }
}
