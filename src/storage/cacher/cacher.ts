/**
 * The Cacher of one resource: the Storage contract (CacherBase) plus the
 * object-level contract (objects.ts) the API server reads through — lists,
 * gets and watches that hand out pre-encoded objects, filter by namespace,
 * index value and predicate while walking, and apply selector transitions to
 * watch events, like upstream's Cacher.GetList / Cacher.Watch. A read that
 * shouldDelegate sends to storage is answered by a DirectObjectStorage.
 */
import { encodeContinue, listStart } from '../continue.js';
import { DirectObjectStorage } from '../direct_objects.js';
import type { EncodedObject } from '../encoded_object.js';
import { expired, keyNotFound } from '../errors.js';
import type {
  ObjectEvent,
  ObjectGetOptions,
  ObjectList,
  ObjectListOptions,
  ObjectStorage,
  ObjectWatcher,
  ObjectWatchOptions,
  SelectorPredicate,
} from '../objects.js';
import { listFromCache } from './cache_list.js';
import type { CachedObject } from './cached_object.js';
import { CacherBase } from './cacher_base.js';
import { indexedTermsOf, passes, toObjectEvent, type ObjectFilter, type Registration } from './cacher_watch.js';
import type { CacheWatcher } from './cache_watcher.js';
import type { WatchCacheEvent } from './watch_cache_event.js';

/** A Storage for one resource prefix, served from memory, with the object API. */
export class Cacher extends CacherBase implements ObjectStorage {
  /** Answers the reads the cache hands to storage. */
  private readonly direct = new DirectObjectStorage({
    storage: this.opts.readStorage ?? this.storage,
    resourcePrefix: this.resourcePrefix,
    ...(this.opts.indexers === undefined ? {} : { indexers: this.opts.indexers }),
    ...(this.opts.codec === undefined ? {} : { codec: this.opts.codec }),
  });

  /** Lists objects, filtered while walking; resourceVersion rules as for list(). */
  async listObjects(opts: ObjectListOptions = {}): Promise<ObjectList> {
    const filter = this.filterOf(opts.namespace, opts.index, opts.predicate);
    const prefix = filter.namespace === undefined ? this.resourcePrefix : `${this.resourcePrefix}${filter.namespace}/`;
    const { revision: exact, startKey } = listStart(prefix, opts);
    const limit = opts.limit ?? 0;
    const plan = await this.plan('list', exact, startKey === undefined ? opts.minRevision : undefined, false);
    if (plan.from === 'storage') {
      this.counters.storageReads++;
      const { minRevision: _m, revision: _r, ...rest } = opts;
      return this.direct.listObjects(
        startKey === undefined && exact !== undefined && exact > 0 ? { ...rest, revision: exact } : rest,
      );
    }
    const index = filter.index === undefined ? undefined : { ...filter.index, name: opts.index!.name };
    if (opts.refusable === true) this.refuseListOverBudget();
    const page = listFromCache(this.watchCache, {
      prefix,
      revision: plan.revision,
      limit,
      ...(startKey === undefined ? {} : { startKey }),
      ...(index === undefined ? {} : { index }),
      ...(filter.predicate === undefined ? {} : { predicate: filter.predicate }),
      ...(filter.indexedTerms === undefined ? {} : { indexedTerms: filter.indexedTerms }),
    });
    this.countList(page.fetched, page.items.length);
    const out: ObjectList = { items: page.items, revision: plan.revision };
    if (page.nextKey !== undefined) out.continue = encodeContinue(prefix, page.nextKey, plan.revision);
    if (page.remaining !== undefined) out.remainingItemCount = page.remaining;
    return out;
  }

  /** Reads one object with its encoded bytes; resourceVersion rules as for get(). */
  async getObject(key: string, opts: ObjectGetOptions = {}): Promise<EncodedObject> {
    const plan = await this.plan('get', opts.revision, opts.minRevision, false);
    if (plan.from === 'storage') {
      this.counters.storageReads++;
      return this.direct.getObject(
        key,
        opts.revision !== undefined && opts.revision > 0 ? { revision: opts.revision } : {},
      );
    }
    const o = this.entryAt(key, plan.revision);
    if (o === null) throw keyNotFound(key);
    this.counters.getTotal++;
    return o;
  }

  /**
   * Watches objects with selector transitions applied, from the window (see
   * ObjectWatchOptions). Failures (Expired, TooLargeResourceVersion, TooSlow)
   * are thrown from the iterator.
   */
  watchObjects(opts: ObjectWatchOptions = {}): ObjectWatcher {
    const filter = this.filterOf(opts.namespace, opts.index, opts.predicate);
    const w = this.newWatcher<ObjectEvent>(filter.index !== undefined || filter.namespace !== undefined ? 1 : 0);
    this.startObjectWatch(w, filter, opts).catch((err) => w.fail(err));
    return w;
  }

  /** Replays what the watch asked for, then files it for live events (`w.registration`). */
  private async startObjectWatch(
    w: CacheWatcher<ObjectEvent>,
    filter: ObjectFilter,
    opts: ObjectWatchOptions,
  ): Promise<void> {
    // Object watches wait for initialization: the window is their contract, storage has no transitions.
    await this.ready();
    const wc = this.watchCache;
    const from = opts.fromRevision ?? 0;
    if (from === 0 && opts.consistent === true && this.consistentReadsFromCache) await this.catchUp();
    if (from > 0) {
      if (from < wc.window.oldestRevision) throw expired(from, wc.window.oldestRevision);
      if (from > wc.revision) await this.waitFresh(from);
    }
    if (w.closed) return;
    if (from > 0) {
      w.addInitial(wc.window.since(from), (ev) => {
        const out = toObjectEvent(filter, ev);
        ev.releaseDecoded();
        return out;
      });
    } else if (opts.initialEvents === true) {
      w.addInitial(this.snapshot(filter), (o) =>
        passes(filter, o, () => o.decode()) ? { type: 'ADDED', revision: o.revision, object: o } : null,
      );
    }
    if (opts.initialEventsEndBookmark === true) w.push({ type: 'BOOKMARK', revision: wc.revision, object: null });
    const reg = objectRegistration(w, filter, opts.allowBookmarks === true, opts.deadline);
    w.registration = reg;
    this.watchers.add(reg);
    if (opts.allowBookmarks === true) this.scheduleBookmark(reg);
  }

  /** The names of the configured indexers. */
  get indexNames(): readonly string[] {
    return this.watchCache.store.indexNames;
  }

  /** The current entries a filter can narrow to cheaply (index or namespace), in key order. */
  private snapshot(f: ObjectFilter): CachedObject[] {
    const store = this.watchCache.store;
    if (f.index !== undefined) return store.byIndex(store.indexNames[f.index.position], f.index.value);
    return store.range(f.namespace === undefined ? this.resourcePrefix : `${this.resourcePrefix}${f.namespace}/`);
  }

  /** Resolves an index name to its position; an unknown indexer is a programming error. */
  private filterOf(
    namespace: string | undefined,
    index: { name: string; value: string } | undefined,
    predicate: SelectorPredicate | undefined,
  ): ObjectFilter {
    const f: ObjectFilter = {};
    if (namespace !== undefined && namespace !== '') f.namespace = namespace;
    if (index !== undefined) {
      const position = this.watchCache.store.indexNames.indexOf(index.name);
      if (position < 0) throw new Error(`watch cache of ${this.resource} has no indexer ${index.name}`);
      f.index = { position, value: index.value };
    }
    if (predicate !== undefined) {
      f.predicate = predicate;
      const terms = indexedTermsOf(predicate, this.watchCache.store.indexNames);
      if (terms !== undefined) f.indexedTerms = terms;
    }
    return f;
  }
}

/**
 * An object watch's registration. The server keeps one per open watch (~127,000 at 2,500 nodes): a class, so its
 * methods are shared and it holds no closure or context of its own, and nothing else of the request hangs off it.
 */
class ObjectRegistration implements Registration {
  lastDispatch = -1;
  deadline?: number;

  constructor(
    readonly watcher: CacheWatcher<unknown>,
    /** The filter is its own route (a WatcherRoute): the index files by `index` before `namespace`. */
    readonly route: ObjectFilter,
  ) {}

  deliver(ev: WatchCacheEvent): void {
    const out = toObjectEvent(this.route, ev);
    if (out !== null) this.watcher.push(out);
  }
}

/** One that asked for bookmarks. */
class BookmarkingObjectRegistration extends ObjectRegistration {
  notify(revision: number): void {
    this.watcher.push({ type: 'BOOKMARK', revision, object: null } satisfies ObjectEvent);
  }
}

function objectRegistration(
  w: CacheWatcher<ObjectEvent>,
  filter: ObjectFilter,
  bookmarks: boolean,
  deadline: number | undefined,
): Registration {
  const reg = new (bookmarks ? BookmarkingObjectRegistration : ObjectRegistration)(w as CacheWatcher<unknown>, filter);
  if (deadline !== undefined) reg.deadline = deadline;
  return reg;
}
