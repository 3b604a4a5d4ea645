/**
 * The Reflector, like client-go's tools/cache/reflector.go: list, then watch
 * from the list's resourceVersion with bookmarks, keeping a store in step.
 * - A watch the server ends cleanly (its timeout) is resumed from the last
 *   RV seen, bookmarks included, without a relist.
 * - 410 Expired, as an ERROR event or as the HTTP status of the watch,
 *   means that RV is gone: relist with RV "" (a consistent read), as
 *   upstream does once the last sync RV is unavailable.
 * - Failed lists and watches back off exponentially with full jitter, so a
 *   fleet whose API server restarts does not come back in lock-step.
 * It runs as callbacks and timers rather than one long async loop: a hollow
 * fleet keeps 127,000 of them watching, and a waiting async frame, promise
 * and iterator per watch cost more than the watch's own HTTP/2 stream.
 */
import type { KubeList, KubeObject, Status } from '../../api/index.js';
import { StatusError } from '../../api/index.js';
import { RealClock, type Clock, type Timer } from '../../clock/index.js';
import { Backoff, type BackoffOptions } from '../flowcontrol/backoff.js';
import { silentLogger, type ClientLogger } from '../logger.js';
import { isResourceExpired } from '../rest/errors.js';
import type { Watch, WatchEvent, WatchSink } from '../rest/watch.js';
import type { ListerWatcher } from './listwatch.js';

/** What a Reflector writes into (a SharedInformer, or a plain store adapter). */
export interface ReflectorStore<T> {
  /** The full state after a list, at `resourceVersion`. */
  replace(items: T[], resourceVersion: string): void;
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
}

/** Reflector knobs; upstream's values are the defaults. */
export interface ReflectorOptions {
  /** Used in logs, e.g. "pods". */
  name?: string;
  clock?: Clock;
  random?: () => number;
  /** Backoff between failed lists and watches (800 ms doubling to 30 s, jitter 1.0). */
  backoff?: Omit<BackoffOptions, 'clock' | 'random'>;
  /** Page size of lists not served from the cache (500, like the pager). 0: no paging. */
  pageSize?: number;
  /** Watch timeoutSeconds is randomized in [min, 2*min) (client-go: 5 min). */
  minWatchTimeoutSeconds?: number;
  /** A clean close after a watch shorter than this with no events counts as a failure. */
  shortWatchMs?: number;
  /** Spread of the re-watch after a clean close, in ms. */
  rewatchJitterMs?: number;
  logger?: ClientLogger;
  /**
   * Applied to every object before it is stored, like client-go's SetTransform
   * (e.g. stripManagedFields, so thousands of cached pods cost less memory).
   */
  transform?: (obj: KubeObject) => KubeObject;
}

/** A transform that drops metadata.managedFields, like client-go's TransformStripManagedFields. */
export function stripManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
  return obj;
}

/** A running reflector's handle. */
export interface Stopper {
  /** Stops and waits until no request or callback is left running. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Keeps a ReflectorStore in sync with one collection through list and watch. */
export class Reflector<T extends KubeObject = KubeObject> implements WatchSink<T> {
  private lastRV = '';
  // After a 410 the last RV can no longer be served; relist with a consistent read.
  private rvUnavailable = false;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private readonly log: ClientLogger;
  private readonly name: string;
  private halted = false;
  /** Cancels the list or watch request on its way (none while a watch streams: an idle watch holds no signal). */
  private inflight: AbortController | undefined;
  /** The open watch, when it started and how many events it delivered. */
  private current: Watch<T> | undefined;
  private watchStarted = 0;
  private events = 0;
  /** The pause before the next list or watch. */
  private timer: Timer | undefined;
  /** Iterated watches (ones without `consume`) still being read. */
  private pumps = 0;
  /** Set while running: resolves once stopped with no request or callback left running. */
  private done: (() => void) | undefined;
  private stopping: Promise<void> | undefined;
  /** Counters for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, expired: 0, failures: 0 };

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly store: ReflectorStore<T>,
    private readonly opts: ReflectorOptions = {},
  ) {
    this.clock = opts.clock ?? new RealClock();
    this.random = opts.random ?? Math.random;
    this.backoff = new Backoff({ ...opts.backoff, clock: this.clock, random: this.random });
    this.log = opts.logger ?? silentLogger;
    this.name = opts.name ?? 'reflector';
  }

  /** The resourceVersion of the last list, event or bookmark. */
  lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  /** Starts the list-and-watch loop; stop it with the returned handle. */
  run(): Stopper {
    if (this.done !== undefined) throw new Error('reflector already running');
    this.halted = false;
    const stopped = new Promise<void>((resolve) => (this.done = resolve));
    this.list();
    const stop = async (): Promise<void> => {
      this.stopping ??= this.halt(stopped);
      await this.stopping;
    };
    return { stop, [Symbol.asyncDispose]: stop };
  }

  private async halt(stopped: Promise<void>): Promise<void> {
    this.halted = true;
    this.inflight?.abort(new Error('reflector stopped'));
    this.timer?.cancel();
    this.timer = undefined;
    this.current?.stop();
    this.current = undefined;
    this.settle();
    await stopped;
    this.done = undefined;
    this.stopping = undefined;
  }

  private get stopped(): boolean {
    return this.halted;
  }

  /** A signal for the next request, aborted if the reflector stops while it is on its way. */
  private request(): AbortSignal {
    this.inflight = new AbortController();
    return this.inflight.signal;
  }

  /** Once stopped, resolves the stop when nothing is left running. */
  private settle(): void {
    if (this.stopped && this.inflight === undefined && this.pumps === 0) this.done?.();
  }

  /** Runs `next` after `ms`, unless stopped first. */
  private after(ms: number, next: () => void): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) next();
    }, ms);
  }

  /** Lists, then watches; a failed list is retried after a backoff. */
  private list(): void {
    this.listOnce(this.request()).then(
      () => {
        this.inflight = undefined;
        if (this.stopped) return this.settle();
        this.watch();
      },
      (err: unknown) => {
        this.inflight = undefined;
        if (this.stopped) return this.settle();
        this.stats.failures++;
        this.log.warn({ reflector: this.name, err: String(err) }, 'list and watch failed');
        this.after(this.backoff.next(), () => this.list());
      },
    );
  }

  private async listOnce(signal: AbortSignal): Promise<void> {
    // Like upstream: the first list may come from the server's cache (RV "0"); after a 410 it must be consistent.
    const rv = this.rvUnavailable ? '' : this.lastRV === '' ? '0' : this.lastRV;
    const pageSize = this.opts.pageSize ?? 500;
    const items: T[] = [];
    let page: KubeList<T>;
    let cont: string | undefined;
    this.stats.lists++;
    do {
      page = await this.lw.list({
        ...(cont === undefined ? { resourceVersion: rv } : { continue: cont }),
        ...(pageSize > 0 ? { limit: pageSize } : {}),
        signal,
      });
      const transform = this.opts.transform;
      for (const it of page.items ?? []) items.push(transform === undefined ? it : (transform(it) as T));
      cont = page.metadata?.continue || undefined;
    } while (cont !== undefined && !this.stopped);
    if (this.stopped) return;
    const listRV = page.metadata?.resourceVersion ?? '';
    // Items of a list carry no kind; fill it in so handlers see whole objects.
    const kind = page.kind?.replace(/List$/, '');
    for (const it of items) {
      if (it.kind === undefined && kind) it.kind = kind;
      if (it.apiVersion === undefined && page.apiVersion) it.apiVersion = page.apiVersion;
    }
    this.store.replace(items, listRV);
    this.lastRV = listRV;
    this.rvUnavailable = false;
    this.log.debug({ reflector: this.name, items: items.length, resourceVersion: listRV }, 'listed');
  }

  /** Opens a watch from the last RV; its events and end arrive through `event` and `end`. */
  private watch(): void {
    const min = this.opts.minWatchTimeoutSeconds ?? 300;
    this.lw
      .watch({
        resourceVersion: this.lastRV,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(min * (1 + this.random())),
        signal: this.request(),
        // Stopping ends an open watch through stop(): no signal is kept per watch while it streams.
        signalUntilResponse: true,
      })
      .then(
        (w) => {
          this.inflight = undefined;
          if (this.stopped) {
            w.stop();
            return this.settle();
          }
          this.stats.watches++;
          this.current = w;
          this.watchStarted = this.clock.monotonic();
          this.events = 0;
          if (w.consume !== undefined) w.consume(this);
          else void this.pump(w);
        },
        (err: unknown) => {
          this.inflight = undefined;
          if (this.stopped) return this.settle();
          if (isResourceExpired(err)) return this.expired('watch request');
          this.stats.failures++;
          // Resume from the same RV after a pause: the server may be restarting or overloaded.
          this.log.warn({ reflector: this.name, err: String(err) }, 'watch failed');
          this.after(this.backoff.next(), () => this.watch());
        },
      );
  }

  /** Feeds a watch that can only be iterated into `event` and `end`. */
  private async pump(w: Watch<T>): Promise<void> {
    this.pumps++;
    try {
      for await (const ev of w) {
        if (this.current !== w) break;
        this.event(ev);
      }
      if (this.current === w) this.end();
    } catch (err) {
      if (this.current === w) this.end(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.pumps--;
      this.settle();
    }
  }

  /** One event of the current watch (WatchSink). */
  event(ev: WatchEvent<T>): void {
    if (this.stopped) return;
    this.events++;
    if (ev.type === 'ERROR') {
      const err = new StatusError(ev.object as Status);
      if (isResourceExpired(err)) return this.closeWatch(() => this.expired('watch event'));
      throw err;
    }
    const obj = this.opts.transform === undefined ? ev.object : (this.opts.transform(ev.object) as T);
    const rv = obj.metadata?.resourceVersion;
    if (ev.type === 'ADDED') this.store.add(obj);
    else if (ev.type === 'MODIFIED') this.store.update(obj);
    else if (ev.type === 'DELETED') this.store.delete(obj);
    if (rv !== undefined && rv !== '') this.lastRV = rv;
  }

  /** The current watch ended (WatchSink): cleanly (the server's timeout), or with `err`. */
  end(err?: Error): void {
    if (this.stopped || this.current === undefined) return;
    this.closeWatch(() => {
      if (err !== undefined) {
        this.stats.failures++;
        this.log.warn({ reflector: this.name, err: String(err), events: this.events }, 'watch ended with an error');
        return this.after(this.backoff.next(), () => this.watch());
      }
      // Like upstream's "very short watch": a server that closes at once would otherwise be hammered.
      if (this.events === 0 && this.clock.monotonic() - this.watchStarted < (this.opts.shortWatchMs ?? 1000))
        return this.after(this.backoff.next(), () => this.watch());
      this.backoff.reset();
      this.after(this.random() * (this.opts.rewatchJitterMs ?? 250), () => this.watch());
    });
  }

  /** Stops the current watch, then goes on with `next`. */
  private closeWatch(next: () => void): void {
    const w = this.current;
    this.current = undefined;
    w?.stop();
    next();
  }

  /** The RV is gone: relist with a consistent read, after a backoff. */
  private expired(where: string): void {
    this.stats.expired++;
    this.rvUnavailable = true;
    this.log.info({ reflector: this.name, resourceVersion: this.lastRV, where }, 'resourceVersion expired; relisting');
    this.after(this.backoff.next(), () => this.list());
  }
}
