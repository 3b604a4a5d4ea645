/**
 * client-go's EventBroadcaster and EventRecorder: components record Events
 * without waiting; one background loop correlates them (aggregation, counts,
 * spam filter) and writes them in order, dropping when its queue is full,
 * like upstream's long-queue broadcaster, so Events never slow a controller.
 */
import type { KubeObject } from '../../api/index.js';
import { isAlreadyExistsError, isNotFoundError, StatusError } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import { silentLogger, type ClientLogger } from '../logger.js';
import type { RESTClient } from '../rest/client.js';
import type { ResourceClient } from '../rest/resource.js';
import { RESOURCES } from '../rest/resources.js';
import { EventCorrelator, type CorrelatorOptions } from './events_cache.js';
import { makeEvent, referenceTo, type CoreEvent, type EventType } from './event.js';

/** Records Events about objects; calls never block and never throw. */
export interface EventRecorder {
  /** Records an Event about `obj` (its kind and apiVersion must be set, or given by the recorder's default kind). */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

/** Options of an EventBroadcaster. */
export interface EventBroadcasterOptions {
  clock: Clock;
  logger?: ClientLogger;
  /** Events waiting to be written before new ones are dropped (upstream: 1000). */
  queueSize?: number;
  /** Attempts per Event while the server cannot be reached (upstream: 12). */
  maxTries?: number;
  /** Wait between attempts (upstream: 10 s). */
  retryIntervalMs?: number;
  correlator?: CorrelatorOptions;
}

/** Counts of what the broadcaster did, for tests and metrics. */
export interface EventBroadcasterStats {
  recorded: number;
  created: number;
  patched: number;
  /** Dropped by the spam filter. */
  filtered: number;
  /** Dropped because the queue was full. */
  dropped: number;
  /** Given up on: rejected by the server, or unreachable for maxTries attempts. */
  failed: number;
}

/** Writes recorded Events to the API server through one ordered background loop. */
export class EventBroadcaster {
  readonly stats: EventBroadcasterStats = { recorded: 0, created: 0, patched: 0, filtered: 0, dropped: 0, failed: 0 };
  private readonly events: ResourceClient<CoreEvent>;
  private readonly correlator: EventCorrelator;
  private readonly queue: CoreEvent[] = [];
  private readonly log: ClientLogger;
  private readonly queueSize: number;
  private readonly maxTries: number;
  private readonly retryIntervalMs: number;
  private running: Promise<void> | undefined;
  private stopped = false;
  private seq = 0;

  constructor(
    client: RESTClient,
    private readonly opts: EventBroadcasterOptions,
  ) {
    this.events = client.resource<CoreEvent>(RESOURCES.events);
    this.correlator = new EventCorrelator(opts.clock, opts.correlator);
    this.log = opts.logger ?? silentLogger;
    this.queueSize = opts.queueSize ?? 1000;
    this.maxTries = opts.maxTries ?? 12;
    this.retryIntervalMs = opts.retryIntervalMs ?? 10_000;
  }

  /** A recorder whose Events carry `source` (component, and host for node agents). */
  newRecorder(source: { component: string; host?: string }): EventRecorder {
    return {
      event: (obj, type, reason, message) => {
        const ref = referenceTo(obj);
        if (ref.kind === '' || ref.name === '') return;
        this.stats.recorded++;
        if (this.stopped) return;
        if (this.queue.length >= this.queueSize) {
          this.stats.dropped++;
          return;
        }
        this.queue.push(makeEvent(ref, type, reason, message, source, this.opts.clock.now(), this.seq++));
        this.running ??= this.drain().finally(() => (this.running = undefined));
      },
    };
  }

  /** Resolves when every queued Event has been written or given up on. */
  async flush(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Stops accepting Events; waits up to `timeoutMs` for the queue to drain. */
  async shutdown(timeoutMs = 2_000): Promise<void> {
    this.stopped = true;
    let timer;
    const timeout = new Promise<void>((resolve) => (timer = this.opts.clock.setTimeout(resolve, timeoutMs)));
    await Promise.race([this.flush(), timeout]);
    timer!.cancel();
    this.queue.length = 0;
  }

  private async drain(): Promise<void> {
    for (let ev = this.queue.shift(); ev !== undefined; ev = this.queue.shift()) {
      const result = this.correlator.correlate(ev);
      if (result.action === 'skip') {
        this.stats.filtered++;
        continue;
      }
      await this.writeWithRetries(result.event, result.action === 'patch' ? result.patch : undefined);
    }
  }

  private async writeWithRetries(ev: CoreEvent, patch: Record<string, unknown> | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(ev, patch);
        return;
      } catch (err) {
        // Like client-go: a server that answered has judged the Event; only an unreachable one is retried.
        if (err instanceof StatusError || attempt >= this.maxTries || this.stopped) {
          this.stats.failed++;
          this.log.warn(
            { reason: ev.reason, object: ev.involvedObject.name, err: (err as Error).message },
            'event not recorded',
          );
          return;
        }
        await this.opts.clock.sleep(attempt === 1 ? Math.random() * this.retryIntervalMs : this.retryIntervalMs);
      }
    }
  }

  private async write(ev: CoreEvent, patch: Record<string, unknown> | undefined): Promise<void> {
    const namespace = ev.metadata.namespace;
    if (patch !== undefined) {
      try {
        await this.events.patch(ev.metadata.name, 'strategic', patch, { namespace });
        this.stats.patched++;
        return;
      } catch (err) {
        if (!isNotFoundError(err)) throw err;
        // The Event expired (event TTL) or was deleted: start a new one under the same name.
        this.correlator.forget(ev);
      }
    }
    try {
      await this.events.create(ev, { namespace });
      this.stats.created++;
    } catch (err) {
      if (!isAlreadyExistsError(err)) throw err;
      this.stats.created++;
    }
  }
}
