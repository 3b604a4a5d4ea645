/**
 * runWorkers: the controller loop client-go's examples spell out by hand
 * (processNextWorkItem): n workers take keys, call the sync function, forget
 * the key on success and requeue it rate-limited on failure. It also counts
 * the keys in flight, so a controller's isIdle is one call.
 */
import { silentLogger, type ClientLogger } from '../logger.js';
import type { RateLimitingQueue } from './rate_limiting_queue.js';

/** Options of runWorkers. */
export interface RunWorkersOptions {
  /** Drop a key after this many requeues (default: never), like controllers' maxRetries. */
  maxRetries?: number;
  logger?: ClientLogger;
  /** Names the workers in logs. */
  name?: string;
}

/** Running workers: `done` resolves when all have exited; `stop` shuts the queue down and waits. */
export interface Workers {
  readonly done: Promise<void>;
  /** Keys taken from the queue and not yet done (being synced, or being requeued or forgotten after it). */
  readonly inFlight: number;
  /** True when no key is in flight and none is ready in the queue; keys waiting out a delay or a rate-limit back-off do not count. */
  idle(): boolean;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts `n` workers over `queue` calling `sync` for each key. */
export function runWorkers<T>(
  queue: RateLimitingQueue<T>,
  n: number,
  sync: (item: T) => Promise<void>,
  opts: RunWorkersOptions = {},
): Workers {
  const log = opts.logger ?? silentLogger;
  const maxRetries = opts.maxRetries ?? Infinity;
  let inFlight = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const item = await queue.get();
      if (item === undefined) return;
      inFlight++;
      try {
        await sync(item);
        queue.forget(item);
      } catch (err) {
        if (queue.numRequeues(item) < maxRetries) {
          log.debug({ queue: opts.name, item: String(item), err: String(err) }, 'sync failed; requeued');
          queue.addRateLimited(item);
        } else {
          log.warn({ queue: opts.name, item: String(item), err: String(err) }, 'sync failed too often; dropped');
          queue.forget(item);
        }
      } finally {
        queue.done(item);
        inFlight--;
      }
    }
  };
  const done = Promise.all(Array.from({ length: n }, worker)).then(() => undefined);
  const stop = async (): Promise<void> => {
    queue.shutDown();
    await done;
  };
  return {
    done,
    get inFlight() {
      return inFlight;
    },
    idle: () => inFlight === 0 && queue.len() === 0,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
