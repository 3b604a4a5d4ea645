/**
 * QueueController: the scaffolding upstream writes out in each controller's
 * Run and processNextWorkItem — one rate-limited queue of namespace/name keys,
 * workers that sync them (the controller's syncHandler), stop after in-flight
 * syncs, and idle when no key is queued or in flight.
 */
import {
  RateLimitingQueue,
  runWorkers,
  type ClientLogger,
  type WorkqueueRateLimiter,
  type Workers,
} from '../../client/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';

/** How a QueueController runs its workers. */
export interface QueueWorkerOptions {
  /** Workers run() starts (the controller's --concurrent-*-syncs). */
  workers: number;
  /** Requeues of a failing key before it is dropped (default: never dropped). */
  maxRetries?: number;
  /** The queue's rate limiter (default: client-go's default controller rate limiter). */
  rateLimiter?: WorkqueueRateLimiter<string>;
}

/** A controller whose work is keys synced from one queue; subclasses register handlers and set syncHandler. */
export abstract class QueueController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  protected readonly log: ClientLogger;
  private workers: Workers | undefined;

  constructor(
    readonly name: string,
    ctx: ControllerContext,
    private readonly workerOpts: QueueWorkerOptions,
  ) {
    this.log = ctx.logger;
    this.queue = new RateLimitingQueue<string>({
      clock: ctx.clock,
      name,
      ...(workerOpts.rateLimiter === undefined ? {} : { rateLimiter: workerOpts.rateLimiter }),
    });
  }

  /** Syncs one key; a throw requeues it rate-limited. */
  protected abstract readonly syncHandler: (key: string) => Promise<void>;

  /** Starts the workers; informers must have synced. */
  run(): void {
    const { workers, maxRetries } = this.workerOpts;
    this.workers = runWorkers(this.queue, workers, this.syncHandler, {
      logger: this.log,
      name: this.name,
      ...(maxRetries === undefined ? {} : { maxRetries }),
    });
  }

  /** Stops the workers after in-flight syncs. */
  async stop(): Promise<void> {
    await this.workers?.stop();
  }

  /** True when no sync runs and none is queued. */
  isIdle(): boolean {
    return this.workers?.idle() ?? this.queue.len() === 0;
  }
}
