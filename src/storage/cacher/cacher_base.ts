/**
 * The Storage half of the Cacher (upstream's cacher.Cacher): a decorator
 * that passes writes through and serves reads and watches from a WatchCache
 * fed by one storage watch. Read rules, like kube-apiserver (the storage-or-cache
 * decision itself is shouldDelegate, delegator.ts):
 * - minRevision (resourceVersion "0" or NotOlderThan N): the cache as it is,
 *   once it has reached N (waiting up to 3 s, then TooLargeResourceVersion);
 * - an exact revision: from memory when inside the window, else from storage;
 * - neither: a consistent read, from the cache once it has reached storage's
 *   current revision (needs reliable progress), else from storage.
 * Storage-contract calls also honour storage compaction (Expired below it);
 * the extended object API (CacherObjects) follows upstream's window only.
 */
import { RealClock, type Clock, type Timer } from '../../clock/index.js';
import { encodeContinue, listStart } from '../continue.js';
import { expired, isStorageError, keyNotFound, StorageError } from '../errors.js';
import type {
  CreateOptions,
  DeleteOptions,
  GuaranteedUpdateOptions,
  KeyValue,
  ListResult,
  Storage,
  StorageStatus,
  TryUpdate,
  UpdateResult,
  WatchEvent,
  WatchOptions,
  Watcher,
} from '../interface.js';
import type { ReadVersion } from '../objects.js';
import { BOOKMARK_FREQUENCY_MS, BookmarkBuckets, nextBookmarkTime } from './bookmarks.js';
import { listFromCache } from './cache_list.js';
import { jsonCodec, type CachedObject } from './cached_object.js';
import { CacheWatcher, type CacheWatcherLimits } from './cache_watcher.js';
import { shouldDelegate, type CacheReadState, type ReadKind } from './delegator.js';
import type { Registration } from './cacher_watch.js';
import { DEFAULT_WINDOW_SIZING } from './event_window.js';
import { CacherCounters, type CacherMetrics } from './metrics.js';
import {
  hasAcknowledgedRevision,
  hasRequestProgress,
  type CacherGetOptions,
  type CacherListOptions,
  type CacherOptions,
} from './options.js';
import { ProgressRequester } from './progress_requester.js';
import { Reflector } from './reflector.js';
import { WatchCache } from './watch_cache.js';
import { WatcherIndex } from './watcher_index.js';
import { crash, failpoint, failpointsEnabled } from '../../failpoint/index.js';
import type { WatchCacheEvent } from './watch_cache_event.js';

/** Where a read is served from: storage, or the cache at a revision. */
export type ReadPlan = { from: 'storage' } | { from: 'cache'; revision: number };
const STORAGE: ReadPlan = { from: 'storage' };
const CONSISTENT: ReadVersion = {};

/** A Storage for one resource prefix, served from memory; Cacher adds the object API. */
export abstract class CacherBase implements Storage, CacheReadState {
  readonly resource: string;
  readonly resourcePrefix: string;
  readonly clock: Clock;
  readonly storage: Storage;
  /** @internal the cache itself, for the object API and tests. */
  readonly watchCache: WatchCache;
  readonly consistentReadsFromCache: boolean;
  /**
   * Whether a consistent read of one object is cheaper from the cache than from storage: only when
   * storage knows its acknowledged revision without a round trip. Over etcd the probe is itself a
   * storage request, so a single-object read might as well be the storage read upstream makes.
   */
  readonly consistentGetsFromCache: boolean;
  protected readonly counters = new CacherCounters();
  protected readonly watchers: WatcherIndex<Registration>;
  private readonly progressWatchers = new Set<Registration>();
  private readonly bookmarks: BookmarkBuckets<Registration>;
  private readonly reflector: Reflector;
  private readonly requester: ProgressRequester | null;
  /** The storage's acknowledged revision, when it knows it without a read (a cheaper consistent-read probe). */
  protected readonly acknowledged: (() => number) | undefined;
  /** Storage's quorum revision plus whether this resource changed since a revision (etcd without reliable progress). */
  private readonly fresh: Storage['freshness'];
  private readonly ticker: Timer;
  private readonly readyPromise: Promise<void>;
  private markReady!: () => void;
  private initialized = false;
  private stopped = false;
  /** The storage's compacted revision, as far as the cacher has seen it. */
  private compacted = 0;
  protected readonly opts: CacherOptions;

  constructor(opts: CacherOptions) {
    this.opts = opts;
    this.storage = opts.storage;
    this.resourcePrefix = opts.resourcePrefix;
    if (!this.resourcePrefix.endsWith('/')) throw new Error(`cacher prefix must end with '/': ${this.resourcePrefix}`);
    this.resource =
      opts.resource ??
      this.resourcePrefix
        .split('/')
        .filter((s) => s !== '')
        .pop() ??
      this.resourcePrefix;
    this.clock = opts.clock ?? new RealClock();
    const indexers = opts.indexers ?? [];
    this.watchCache = new WatchCache(
      this.resourcePrefix,
      indexers,
      opts.codec ?? jsonCodec,
      this.clock,
      { ...DEFAULT_WINDOW_SIZING, ...opts.windowSizing },
      opts.memoryBudget,
    );
    this.watchers = new WatcherIndex(indexers.length);
    this.bookmarks = new BookmarkBuckets(this.clock.now());
    const storage = this.storage;
    this.requester = hasRequestProgress(storage)
      ? new ProgressRequester(
          () => storage.requestProgress(),
          () => this.watchCache.hasWaiters,
          this.clock,
        )
      : null;
    this.fresh = storage.freshness === undefined ? undefined : (p, since, n) => storage.freshness!(p, since, n);
    this.consistentReadsFromCache =
      opts.consistentReadsFromCache ?? (this.requester !== null || this.fresh !== undefined);
    this.acknowledged = hasAcknowledgedRevision(storage) ? () => storage.acknowledgedRevision() : undefined;
    this.consistentGetsFromCache = this.consistentReadsFromCache && this.acknowledged !== undefined;
    this.readyPromise = new Promise((resolve) => (this.markReady = resolve));
    this.reflector = new Reflector(
      this.storage,
      this.resourcePrefix,
      this.clock,
      {
        replace: (items, revision) => this.onReplace(items, revision),
        event: (ev) => this.onEvent(ev),
        revision: () => this.watchCache.revision,
      },
      opts.log,
    );
    this.ticker = this.clock.setInterval(() => this.onTick(), 1_000);
    void this.reflector.run();
  }

  /** Resolves once the initial list is in memory. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  /** Objects in the cache, for flow control's list-cost estimate (upstream's object count tracker). */
  get objectCount(): number {
    return this.watchCache.store.size;
  }

  /** Whether the initial list is in memory. */
  get isReady(): boolean {
    return this.initialized;
  }

  /** The revision the cache has reached. */
  get revision(): number {
    return this.watchCache.revision;
  }

  /** Current metric values (see CacherMetrics for upstream's names). */
  metrics(): CacherMetrics {
    const wc = this.watchCache;
    return {
      resource: this.resource,
      capacity: wc.window.capacity,
      windowEvents: wc.window.length,
      objects: wc.store.size,
      bytes: wc.heldBytes,
      shedEvents: wc.window.shedEvents,
      resourceVersion: wc.revision,
      watchers: this.watchers.size,
      progressRequests: this.requester?.requests ?? 0,
      ...this.counters,
    };
  }

  // ---- writes and store-wide calls pass through ----

  currentRevision(): Promise<number> {
    return this.storage.currentRevision();
  }
  create(key: string, value: Buffer, opts?: CreateOptions): Promise<KeyValue> {
    if (opts?.object !== undefined) this.watchCache.noteWritten(key, value, opts.object);
    return this.storage.create(key, value, opts);
  }
  /**
   * Passes the cache's copy of the key along as a starting point, like upstream's Cacher.GuaranteedUpdate,
   * and notes the object each attempt writes, so its event is indexed without scanning its bytes.
   */
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: GuaranteedUpdateOptions = {}): Promise<KeyValue> {
    const cached = opts.cachedExisting === undefined && this.isReady ? this.watchCache.store.get(key) : undefined;
    const note = (r: UpdateResult): UpdateResult => {
      if (r.object !== undefined) this.watchCache.noteWritten(key, r.value, r.object);
      return r;
    };
    const noting: TryUpdate = (cur) => {
      const r = tryUpdate(cur);
      return r instanceof Promise ? r.then(note) : note(r);
    };
    return this.storage.guaranteedUpdate(
      key,
      noting,
      cached === undefined ? opts : { ...opts, cachedExisting: cached.kv },
    );
  }
  delete(key: string, opts?: DeleteOptions): Promise<KeyValue> {
    return this.storage.delete(key, opts);
  }
  async compact(revision: number): Promise<void> {
    await this.storage.compact(revision);
    this.noteCompacted(revision);
  }
  async status(): Promise<StorageStatus> {
    const st = await this.storage.status();
    this.noteCompacted(st.compactedRevision);
    return st;
  }
  disarmAlarms(): Promise<void> {
    return this.storage.disarmAlarms();
  }
  defragment(): Promise<void> {
    return this.storage.defragment();
  }

  /** Records a compaction done elsewhere (the registry compacts storage once for every cacher). */
  noteCompacted(revision: number): void {
    this.compacted = Math.max(this.compacted, revision);
  }

  /** Stops the cacher and ends its watchers; the decorated storage stays open (it is shared). */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.reflector.stop();
    this.requester?.stop();
    this.ticker.cancel();
    this.watchCache.failWaiters(new StorageError('Unavailable', `watch cache of ${this.resource} is stopped`));
    for (const r of [...this.watchers]) r.watcher.stop();
    this.watchCache.release();
  }

  // ---- reads ----

  /** Reads one key; see the module comment for the revision rules. The KeyValue is shared: do not mutate it. */
  async get(key: string, opts: CacherGetOptions = {}): Promise<KeyValue> {
    const plan = await this.plan('get', opts.revision, opts.minRevision, true);
    if (plan.from === 'storage') {
      this.counters.storageReads++;
      return this.storage.get(key, opts.revision !== undefined && opts.revision > 0 ? { revision: opts.revision } : {});
    }
    const o = this.entryAt(key, plan.revision);
    if (o === null) throw keyNotFound(key);
    this.counters.getTotal++;
    return o.kv;
  }

  /** Lists a prefix under the resource; every page of one list is pinned to the first page's revision. */
  async list(prefix: string, opts: CacherListOptions = {}): Promise<ListResult> {
    const { revision: exact, startKey } = listStart(prefix, opts);
    const plan = await this.plan('list', exact, startKey === undefined ? opts.minRevision : undefined, true);
    if (plan.from === 'storage') {
      this.counters.storageReads++;
      const { minRevision: _m, ...rest } = opts;
      return this.storage.list(prefix, rest);
    }
    const page = listFromCache(this.watchCache, {
      prefix,
      revision: plan.revision,
      limit: opts.limit ?? 0,
      ...(startKey === undefined ? {} : { startKey }),
    });
    this.countList(page.fetched, page.items.length);
    const out: ListResult = { items: page.items.map((o) => o.kv), revision: plan.revision };
    if (page.nextKey !== undefined) out.continue = encodeContinue(prefix, page.nextKey, plan.revision);
    if (page.remaining !== undefined) out.remainingItemCount = page.remaining;
    return out;
  }

  /**
   * Over --watch-cache-max-bytes even with every history shed, a client's LIST from the cache is refused with
   * Busy (429 and Retry-After): building its response would add to a heap already past the watermark.
   */
  protected refuseListOverBudget(): void {
    const b = this.opts.memoryBudget;
    if (b === undefined || !b.refuseList()) return;
    this.counters.refusedLists++;
    throw new StorageError(
      'Busy',
      `the watch cache holds ${b.heldBytes} bytes, over --watch-cache-max-bytes ${b.maxBytes}: list ${this.resource} again later`,
    );
  }

  /** The entry of `key` at a planned revision, or null. */
  protected entryAt(key: string, revision: number): CachedObject | null {
    const wc = this.watchCache;
    return revision >= wc.revision ? (wc.store.get(key) ?? null) : wc.getAt(key, revision);
  }

  protected countList(fetched: number, returned: number): void {
    this.counters.listTotal++;
    this.counters.listFetchedObjects += fetched;
    this.counters.listReturnedObjects += returned;
  }

  /** The oldest revision an exact read can be served at from memory (the event window's start). */
  get oldestRevision(): number {
    return this.watchCache.window.oldestRevision;
  }

  /**
   * Where a read is served from: waits for the cache when it is behind the revision asked for,
   * then lets shouldDelegate decide; a consistent read from the cache first waits for storage's revision.
   */
  protected async plan(
    kind: ReadKind,
    exact: number | undefined,
    min: number | undefined,
    honourCompaction: boolean,
  ): Promise<ReadPlan> {
    if (!(await this.awaitReady())) return STORAGE;
    const wc = this.watchCache;
    const isExact = exact !== undefined && exact > 0;
    if (isExact) {
      if (honourCompaction && exact < this.compacted) throw expired(exact, this.compacted);
      if (exact > wc.revision && !(await this.waitFor(exact))) return STORAGE;
    } else if (min !== undefined && min > wc.revision && !(await this.waitFor(min))) {
      return STORAGE;
    }
    if (
      shouldDelegate(kind, isExact ? { revision: exact } : min === undefined ? CONSISTENT : { minRevision: min }, this)
    )
      return STORAGE;
    if (isExact) return { from: 'cache', revision: exact };
    if (min !== undefined) return { from: 'cache', revision: wc.revision };
    if (kind === 'get') {
      // A consistent GET is served from the cache only when it is current already: one object is a cheap storage
      // read, so it never waits for the cache to catch up (upstream sends every consistent GET to etcd). Under load
      // the cache trails the last acknowledged write by the event pipeline's delay, which a wait would add to the GET.
      const target = this.acknowledged?.();
      if (target === undefined || target > wc.revision) return STORAGE;
      return { from: 'cache', revision: wc.revision };
    }
    try {
      return { from: 'cache', revision: await this.catchUp() };
    } catch (err) {
      // Like upstream's consistent reads from cache: if the cache does not catch up in time, ask storage.
      if (isStorageError(err, 'TooLargeResourceVersion')) return STORAGE;
      throw err;
    }
  }

  /**
   * Waits (bounded) until the cache is as fresh as storage for a consistent read, and resolves
   * with the revision to serve at. Storage's revision comes from its acknowledged revision, or a
   * quorum read; over etcd that read also tells whether this resource changed since the cache's
   * revision, and when it did not the cache is current already, as a progress notification
   * would have said. TooLargeResourceVersion when the cache does not catch up in time.
   */
  protected async catchUp(): Promise<number> {
    const wc = this.watchCache;
    if (this.acknowledged === undefined && this.fresh !== undefined) {
      const since = wc.revision;
      const f = await this.fresh(this.resourcePrefix, since, wc.store.size);
      if (wc.revision >= f.revision) return wc.revision;
      if (f.unchanged && wc.revision === since) {
        // Nothing under the prefix in (since, f.revision]: any event still to come is newer, so the
        // cache may move to f.revision now, exactly as a progress notification would move it.
        this.onEvent({ type: 'progress', revision: f.revision, key: '' });
        return wc.revision;
      }
      await this.waitFresh(f.revision);
      return wc.revision;
    }
    const target = this.acknowledged?.() ?? (await this.storage.currentRevision());
    if (target > wc.revision) await this.waitFresh(target);
    return wc.revision;
  }

  /**
   * Waits for the cache to reach a requested revision. Returns false when
   * storage should answer instead: without reliable progress an idle resource
   * lags storage, so after the wait storage decides; with it, the revision is
   * truly ahead and the wait ends in TooLargeResourceVersion (504).
   */
  protected async waitFor(revision: number): Promise<boolean> {
    try {
      await this.waitFresh(revision);
      return true;
    } catch (err) {
      if (!isStorageError(err, 'TooLargeResourceVersion') || this.requester !== null) throw err;
      if ((await this.storage.currentRevision()) >= revision) return false;
      throw err;
    }
  }

  /** Waits until the cache reaches `revision`, asking storage for progress meanwhile. */
  protected waitFresh(revision: number): Promise<void> {
    const p = this.watchCache.waitUntilFresh(revision, this.opts.freshnessTimeoutMs ?? 3_000);
    if (this.watchCache.hasWaiters) this.requester?.kick();
    return p;
  }

  /** Resolves true once ready, or false after readyTimeoutMs (reads then go to storage, like upstream's resilient initialization). */
  protected async awaitReady(): Promise<boolean> {
    if (this.initialized) return true;
    if (this.stopped) return false;
    let timer: Timer | undefined;
    const timeout = new Promise<false>(
      (resolve) => (timer = this.clock.setTimeout(() => resolve(false), this.opts.readyTimeoutMs ?? 10_000)),
    );
    const ok = await Promise.race([this.readyPromise.then(() => true), timeout]);
    timer?.cancel();
    return ok;
  }

  // ---- watches ----

  /** Watches keys under `prefix` (Storage contract). A revision older than the window but not compacted is served by a storage watch. */
  watch(prefix: string, opts: WatchOptions = {}): Watcher {
    const rel = prefix.slice(this.resourcePrefix.length);
    const ns = /^[^/]+\/$/.test(rel) ? rel.slice(0, -1) : undefined;
    const w = this.newWatcher<WatchEvent>(ns === undefined ? 0 : 1);
    const convert = (ev: WatchCacheEvent): WatchEvent | null =>
      ev.key.startsWith(prefix) ? ev.toStorageEvent() : null;
    const start = async (): Promise<void> => {
      const ready = await this.awaitReady();
      if (w.closed) return;
      const from = opts.fromRevision ?? 0;
      if (from > 0 && from < this.compacted) throw expired(from, this.compacted);
      const wc = this.watchCache;
      if (from > wc.revision && ready && !(await this.waitFor(from))) return this.pipe(w, prefix, opts);
      if (!ready || (from > 0 && from < wc.window.oldestRevision)) return this.pipe(w, prefix, opts);
      if (w.closed) return;
      if (from > 0) w.addInitial(wc.window.since(from), convert);
      const reg: Registration = {
        route: ns === undefined ? {} : { namespace: ns },
        lastDispatch: -1,
        watcher: w as CacheWatcher<unknown>,
        deliver: (ev) => {
          const out = convert(ev);
          if (out !== null) w.push(out);
        },
        notify: (revision) => {
          const interval = this.opts.progressForwardIntervalMs ?? 1_000;
          if (this.clock.now() - w.lastSent >= interval) w.push({ type: 'progress', revision, key: '' });
        },
      };
      w.registration = reg;
      this.watchers.add(reg);
      if (opts.progressNotify !== false) this.progressWatchers.add(reg);
    };
    start().catch((err) => w.fail(err));
    return w;
  }

  /** Serves a Storage-contract watch from storage, through the watcher's bounded buffer. */
  private async pipe(w: CacheWatcher<WatchEvent>, prefix: string, opts: WatchOptions): Promise<void> {
    this.counters.storageReads++;
    const sw = this.storage.watch(prefix, opts);
    const stopInner = (): void => sw.stop();
    this.pipes.set(w as CacheWatcher<unknown>, stopInner);
    if (w.closed) return stopInner();
    for await (const ev of sw) {
      if (w.closed) break;
      w.push(ev);
    }
    w.stop();
  }
  private readonly pipes = new Map<CacheWatcher<unknown>, () => void>();

  /**
   * A watcher with this cacher's limits; `kind` 1 means filtered by namespace or index (smaller buffer, like
   * upstream). Its end unfiles it through one shared callback, so an open watcher holds no closure of its own.
   */
  protected newWatcher<T>(kind: 0 | 1): CacheWatcher<T> {
    this.watcherLimits ??= [this.limitsOf(0), this.limitsOf(1)];
    return new CacheWatcher<T>(this.clock, this.watcherLimits[kind], this.onWatcherEnd);
  }

  /** The watcher limits by kind (0: all or a prefix; 1: a namespace or an index value), made on first use. */
  private watcherLimits: readonly [CacheWatcherLimits, CacheWatcherLimits] | undefined;

  private limitsOf(kind: 0 | 1): CacheWatcherLimits {
    const capacity = this.opts.watcherCapacity ?? (kind === 1 ? 100 : 1_000);
    return { capacity, budgetMs: this.opts.slowWatcherBudgetMs ?? 5_000, hardLimit: capacity * 10 };
  }

  /** A watcher ended: out of the index, its storage pipe (if any) stopped. */
  private readonly onWatcherEnd = (tooSlow: boolean, w: CacheWatcher<unknown>): void => {
    const r = w.registration as Registration | undefined;
    if (r !== undefined) {
      this.watchers.remove(r);
      this.progressWatchers.delete(r);
    }
    const pipe = this.pipes.get(w);
    if (pipe !== undefined) {
      this.pipes.delete(w);
      pipe();
    }
    if (tooSlow) this.counters.terminatedWatchers++;
  };

  /** Files a bookmark-wanting registration for its next bookmark. */
  protected scheduleBookmark(reg: Registration): void {
    const at = nextBookmarkTime(this.clock.now(), this.opts.bookmarkFrequencyMs ?? BOOKMARK_FREQUENCY_MS, reg.deadline);
    if (at !== undefined) this.bookmarks.add(reg, at);
  }

  /** Sends due bookmarks (upstream's 1 s bookmark timer). */
  private onTick(): void {
    for (const reg of this.bookmarks.popDue(this.clock.now())) {
      if (reg.watcher.closed) continue;
      // Like upstream, skip a bookmark for a watcher whose buffer is full; it gets the next one.
      if (!reg.watcher.blocked) reg.notify?.(this.watchCache.revision);
      this.scheduleBookmark(reg);
    }
  }

  // ---- feeding the cache ----

  private onReplace(items: KeyValue[], revision: number): void {
    if (this.initialized) {
      // A re-list means events were lost to compaction: watchers cannot continue without a gap.
      const err = expired(this.watchCache.revision, revision);
      for (const r of [...this.watchers]) r.watcher.fail(err);
    }
    this.watchCache.replace(items, revision);
    this.counters.initializations++;
    if (!this.initialized) {
      this.initialized = true;
      this.markReady();
    }
  }

  private onEvent(ev: WatchEvent): void {
    const rec = this.watchCache.processEvent(ev);
    if (ev.type === 'progress') {
      const rev = this.watchCache.revision;
      for (const r of this.progressWatchers) r.notify?.(rev);
      return;
    }
    if (rec === null) return;
    this.counters.eventsReceived++;
    // The fan-out's failpoint, one per resource (cacher/dispatch/configmaps): `duplicate` and `skip` are the
    // checker's mutation runs (an event delivered twice, a revision never delivered).
    const fault = failpointsEnabled ? failpoint(`cacher/dispatch/${this.resource}`) : undefined;
    if (fault?.kind === 'panic') crash(`cacher/dispatch/${this.resource}`);
    this.watchers.forEachInterested(rec, (r) => {
      this.counters.eventsDispatched++;
      if (fault?.kind === 'verb' && fault.verb === 'skip') return;
      r.deliver(rec);
      if (fault?.kind === 'verb' && fault.verb === 'duplicate') r.deliver(rec);
    });
    rec.releaseDecoded();
  }
}
