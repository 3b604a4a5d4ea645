/**
 * Periodic, like apimachinery's wait.Until (sliding): runs `fn` at once,
 * then again `periodMs` after each run ends, on the injected Clock. A run
 * never overlaps the previous one, and errors are logged, never thrown.
 */
import type { ClientLogger } from '../client/index.js';
import type { Clock, Timer } from '../clock/index.js';
import type { Controller, ControllerContext } from './controller_context.js';

/** A loop started by `start` and ended by `stop`. */
export class Periodic {
  private timer: Timer | undefined;
  private current: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly clock: Clock,
    private readonly periodMs: number,
    private readonly fn: () => Promise<void>,
    private readonly log: ClientLogger,
    private readonly name: string,
  ) {}

  /** True while a run is in progress. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Starts the loop with an immediate run. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.tick();
  }

  private tick(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.current = this.fn()
      .catch((err: unknown) => this.log.warn({ loop: this.name, err: String(err) }, 'periodic run failed'))
      .finally(() => {
        this.current = undefined;
        if (!this.stopped) this.timer = this.clock.setTimeout(() => this.tick(), this.periodMs);
      });
  }

  /** Stops scheduling runs and waits for the current one. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.current;
  }
}

/** A controller whose work is one pass repeated every period on a Periodic; subclasses set name and pass. */
export abstract class PeriodicController implements Controller {
  abstract readonly name: string;
  protected readonly log: ClientLogger;
  private readonly loop: Periodic;

  constructor(ctx: ControllerContext, periodMs: number, loopName: string) {
    this.log = ctx.logger;
    this.loop = new Periodic(ctx.clock, periodMs, () => this.pass(), this.log, loopName);
  }

  /** One pass; a throw is logged and the next pass still runs. */
  protected abstract readonly pass: () => Promise<void>;

  /** Starts the periodic pass. */
  run(): void {
    this.loop.start();
  }

  /** Stops the pass after the current one. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** True between passes. */
  isIdle(): boolean {
    return !this.loop.running;
  }
}

/** Runs `fn` over `items` with at most `workers` in flight, like workqueue.ParallelizeUntil. */
export async function parallelize<T>(
  workers: number,
  items: readonly T[],
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(workers, items.length) }, worker));
}
