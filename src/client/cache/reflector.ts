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
 */
import type { KubeList, KubeObject, Status } from '../../api/index.js';
import { StatusError } from '../../api/index.js';
import { RealClock, type Clock } from '../../clock/index.js';
import { Backoff, type BackoffOptions } from '../flowcontrol/backoff.js';
import { sleepAbortable } from '../flowcontrol/token_bucket.js';
import { silentLogger, type ClientLogger } from '../logger.js';
import { isResourceExpired } from '../rest/errors.js';
import type { Watch } from '../rest/watch.js';
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
export class Reflector<T extends KubeObject = KubeObject> {
  private lastRV = '';
  // After a 410 the last RV can no longer be served; relist with a consistent read.
  private rvUnavailable = false;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private readonly log: ClientLogger;
  private readonly name: string;
  private abort = new AbortController();
  private current: Watch<T> | undefined;
  private loop: Promise<void> | undefined;
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
    if (this.loop !== undefined) throw new Error('reflector already running');
    this.abort = new AbortController();
    this.loop = this.runLoop();
    const stop = async (): Promise<void> => {
      this.abort.abort(new Error('reflector stopped'));
      this.current?.stop();
      await this.loop;
      this.loop = undefined;
    };
    return { stop, [Symbol.asyncDispose]: stop };
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async runLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.listAndWatch();
      } catch (err) {
        if (this.stopped) break;
        this.stats.failures++;
        this.log.warn({ reflector: this.name, err: String(err) }, 'list and watch failed');
      }
      await this.pause(this.backoff.next());
    }
  }

  private async pause(ms: number): Promise<void> {
    try {
      await sleepAbortable(this.clock, ms, this.abort.signal);
    } catch {
      // Stopped while waiting.
    }
  }

  /** One list followed by watches until the RV expires or a watch fails in a way a relist should fix. */
  private async listAndWatch(): Promise<void> {
    await this.list();
    while (!this.stopped) {
      const outcome = await this.watchOnce();
      if (outcome === 'relist') return;
      if (outcome === 'backoff') await this.pause(this.backoff.next());
      else if (outcome === 'rewatch') await this.pause(this.random() * (this.opts.rewatchJitterMs ?? 250));
    }
  }

  private async list(): Promise<void> {
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
        signal: this.abort.signal,
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

  /** Runs one watch to its end and says what to do next. */
  private async watchOnce(): Promise<'relist' | 'backoff' | 'rewatch' | 'stopped'> {
    const min = this.opts.minWatchTimeoutSeconds ?? 300;
    let w: Watch<T>;
    try {
      w = await this.lw.watch({
        resourceVersion: this.lastRV,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(min * (1 + this.random())),
        signal: this.abort.signal,
      });
    } catch (err) {
      if (this.stopped) return 'stopped';
      if (isResourceExpired(err)) return this.expired('watch request');
      this.stats.failures++;
      // Resume from the same RV after a pause: the server may be restarting or overloaded.
      this.log.warn({ reflector: this.name, err: String(err) }, 'watch failed');
      return 'backoff';
    }
    this.stats.watches++;
    this.current = w;
    const started = this.clock.monotonic();
    let events = 0;
    try {
      for await (const ev of w) {
        if (this.stopped) break;
        events++;
        if (ev.type === 'ERROR') {
          if (isResourceExpired(new StatusError(ev.object))) return this.expired('watch event');
          throw new StatusError(ev.object as Status);
        }
        const obj = this.opts.transform === undefined ? ev.object : (this.opts.transform(ev.object) as T);
        const rv = obj.metadata?.resourceVersion;
        if (ev.type === 'ADDED') this.store.add(obj);
        else if (ev.type === 'MODIFIED') this.store.update(obj);
        else if (ev.type === 'DELETED') this.store.delete(obj);
        if (rv !== undefined && rv !== '') this.lastRV = rv;
      }
    } catch (err) {
      if (this.stopped) return 'stopped';
      this.stats.failures++;
      this.log.warn({ reflector: this.name, err: String(err), events }, 'watch ended with an error');
      return 'backoff';
    } finally {
      w.stop();
      this.current = undefined;
    }
    if (this.stopped) return 'stopped';
    // Like upstream's "very short watch": a server that closes at once would otherwise be hammered.
    if (events === 0 && this.clock.monotonic() - started < (this.opts.shortWatchMs ?? 1000)) return 'backoff';
    this.backoff.reset();
    return 'rewatch';
  }

  private expired(where: string): 'relist' {
    this.stats.expired++;
    this.rvUnavailable = true;
    this.log.info({ reflector: this.name, resourceVersion: this.lastRV, where }, 'resourceVersion expired; relisting');
    return 'relist';
  }
}
