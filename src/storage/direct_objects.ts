/**
 * The object-level contract (objects.ts) served straight from the byte-level Storage (sqlite,
 * etcd3, the router): what the API server reads through with --watch-cache=false, and what the
 * Cacher hands a read to when shouldDelegate says so. Filters decode each object; a watch
 * translates storage events into ADDED/MODIFIED/DELETED with selector transitions, like
 * upstream's etcd3 watcher with a predicate.
 */
import { encodeContinue } from './continue.js';
import { EncodedObject, jsonCodec, type ObjectCodec } from './encoded_object.js';
import { tooLargeResourceVersion } from './errors.js';
import type { KeyValue, Storage, Watcher } from './interface.js';
import type {
  Indexer,
  ObjectEvent,
  ObjectGetOptions,
  ObjectList,
  ObjectListOptions,
  ObjectStorage,
  ObjectWatcher,
  ObjectWatchOptions,
} from './objects.js';

/** How to build a DirectObjectStorage for one resource. */
export interface DirectObjectStorageOptions {
  storage: Storage;
  /** The resource's key prefix, ending in '/'. */
  resourcePrefix: string;
  /** The fields `index` may name; here they filter by decoding (the cache keeps real indexes). */
  indexers?: readonly Indexer[];
  /** Decoding and response encoding (default: JSON with resourceVersion spliced in). */
  codec?: ObjectCodec;
}

/** A filter on decoded objects: namespace is already in the key prefix. */
type DecodedFilter = (o: EncodedObject) => boolean;

/** ObjectStorage over byte-level Storage. */
export class DirectObjectStorage implements ObjectStorage {
  readonly resourcePrefix: string;
  readonly indexNames: readonly string[];
  private readonly storage: Storage;
  private readonly indexers: readonly Indexer[];
  private readonly codec: ObjectCodec;

  constructor(opts: DirectObjectStorageOptions) {
    if (!opts.resourcePrefix.endsWith('/'))
      throw new Error(`resource prefix must end with '/': ${opts.resourcePrefix}`);
    this.storage = opts.storage;
    this.resourcePrefix = opts.resourcePrefix;
    this.indexers = opts.indexers ?? [];
    this.indexNames = this.indexers.map((i) => i.name);
    this.codec = opts.codec ?? jsonCodec;
  }

  /** Reads one object: at an exact revision, else the latest state (a quorum read), after checking a minimum revision is not ahead. */
  async getObject(key: string, opts: ObjectGetOptions = {}): Promise<EncodedObject> {
    if (opts.revision !== undefined && opts.revision > 0)
      return this.wrap(await this.storage.get(key, { revision: opts.revision }));
    if (opts.minRevision !== undefined && opts.minRevision > 0) await this.checkNotAhead(opts.minRevision);
    return this.wrap(await this.storage.get(key));
  }

  /**
   * Lists objects: at an exact revision (or the continue token's), else the latest state. With a
   * filter and a limit it reads storage pages until `limit` objects pass, like upstream's etcd3
   * list with a predicate, and only hands out a continue token when another object passes.
   */
  async listObjects(opts: ObjectListOptions = {}): Promise<ObjectList> {
    const prefix =
      opts.namespace === undefined || opts.namespace === ''
        ? this.resourcePrefix
        : `${this.resourcePrefix}${opts.namespace}/`;
    const filter = this.filterOf(opts);
    const limit = opts.limit ?? 0;
    let token = opts.continue === '' ? undefined : opts.continue;
    let revision = opts.revision ?? 0;
    if (token === undefined && revision === 0 && opts.minRevision !== undefined && opts.minRevision > 0)
      await this.checkNotAhead(opts.minRevision);
    const out: ObjectList = { items: [], revision: 0 };
    for (;;) {
      const pageLimit = limit === 0 ? 0 : filter === undefined ? limit - out.items.length : Math.max(limit, 500);
      const page = await this.storage.list(prefix, {
        ...(revision > 0 ? { revision } : {}),
        ...(pageLimit > 0 ? { limit: pageLimit } : {}),
        ...(token === undefined ? {} : { continue: token }),
      });
      out.revision = revision = page.revision;
      for (let i = 0; i < page.items.length; i++) {
        const o = this.wrap(page.items[i]!);
        if (filter !== undefined && !filter(o)) continue;
        if (limit > 0 && out.items.length === limit) {
          out.continue = encodeContinue(prefix, o.key, page.revision);
          return out;
        }
        out.items.push(o);
      }
      if (page.continue === undefined) return out;
      if (limit > 0 && out.items.length === limit && filter === undefined) {
        out.continue = page.continue;
        if (page.remainingItemCount !== undefined) out.remainingItemCount = page.remainingItemCount;
        return out;
      }
      token = page.continue;
    }
  }

  /** Watches storage from a revision, first listing the current state when asked for initial events. */
  watchObjects(opts: ObjectWatchOptions = {}): ObjectWatcher {
    return new DirectObjectWatcher(this, this.storage, opts);
  }

  /** An object as storage holds it, shown at its mod revision. */
  wrap(kv: KeyValue, revision = kv.modRevision): EncodedObject {
    return new EncodedObject(kv.key, kv.value, revision, this.codec);
  }

  /** The filter of a list or watch on decoded objects, or undefined when there is none. */
  filterOf(opts: Pick<ObjectListOptions, 'index' | 'predicate'>): DecodedFilter | undefined {
    const { index, predicate } = opts;
    if (index === undefined) return predicate === undefined ? undefined : (o) => predicate(o.decode());
    const indexer = this.indexers.find((i) => i.name === index.name);
    if (indexer === undefined) throw new Error(`storage of ${this.resourcePrefix} has no indexer ${index.name}`);
    return (o) => {
      const d = o.decode();
      return indexer.fn(d) === index.value && (predicate === undefined || predicate(d));
    };
  }

  /** TooLargeResourceVersion (504) when asked for a revision storage has not reached. */
  private async checkNotAhead(min: number): Promise<void> {
    const current = await this.storage.currentRevision();
    if (min > current) throw tooLargeResourceVersion(min, current);
  }
}

/** A storage watch translated for one filter; bookmarks come from storage's progress events. */
class DirectObjectWatcher implements ObjectWatcher {
  private inner: Watcher | undefined;
  private events: AsyncGenerator<ObjectEvent> | undefined;
  private stopped = false;

  constructor(
    private readonly objects: DirectObjectStorage,
    private readonly storage: Storage,
    private readonly opts: ObjectWatchOptions,
  ) {}

  stop(): void {
    this.stopped = true;
    this.inner?.stop();
  }

  /** One stream per watcher: iterating it again continues it, as with every Watcher. */
  [Symbol.asyncIterator](): AsyncIterator<ObjectEvent> {
    return (this.events ??= this.run());
  }

  private async *run(): AsyncGenerator<ObjectEvent> {
    const { opts, objects } = this;
    const ns = opts.namespace === undefined || opts.namespace === '' ? undefined : opts.namespace;
    const prefix = ns === undefined ? objects.resourcePrefix : `${objects.resourcePrefix}${ns}/`;
    const filter = objects.filterOf(opts);
    const bookmarks = opts.allowBookmarks === true;
    let from = opts.fromRevision ?? 0;
    if (from === 0 && opts.initialEvents === true) {
      const page = await objects.listObjects({
        ...(ns === undefined ? {} : { namespace: ns }),
        ...(opts.index === undefined ? {} : { index: opts.index }),
        ...(opts.predicate === undefined ? {} : { predicate: opts.predicate }),
      });
      for (const o of page.items) {
        if (this.stopped) return;
        yield { type: 'ADDED', revision: o.revision, object: o };
      }
      from = page.revision;
    }
    if (opts.initialEventsEndBookmark === true && from > 0) yield { type: 'BOOKMARK', revision: from, object: null };
    if (this.stopped) return;
    const w = this.storage.watch(prefix, { fromRevision: from, progressNotify: bookmarks });
    this.inner = w;
    let last = from;
    for await (const ev of w) {
      if (ev.type === 'progress') {
        if (bookmarks && ev.revision > last) {
          last = ev.revision;
          yield { type: 'BOOKMARK', revision: ev.revision, object: null };
        }
        continue;
      }
      last = ev.revision;
      const out = this.convert(
        ev.type === 'delete' ? null : ev.kv!,
        ev.type === 'delete' ? (ev.prevKv ?? ev.kv!) : ev.prevKv,
        ev.revision,
        filter,
      );
      if (out !== null) yield out;
    }
    // A watch that ends without a failure (stopped at its timeout) tells the client how far it got.
    if (bookmarks && last > 0) yield { type: 'BOOKMARK', revision: last, object: null };
  }

  /** Entering the filter is ADDED, leaving it DELETED (shown at the event's revision), like upstream's watchers. */
  private convert(
    cur: KeyValue | null,
    prev: KeyValue | undefined,
    revision: number,
    filter: DecodedFilter | undefined,
  ): ObjectEvent | null {
    const o = cur === null ? null : this.objects.wrap(cur, revision);
    const old = prev === undefined ? null : this.objects.wrap(prev, revision);
    const isIn = o !== null && (filter === undefined || filter(o));
    const wasIn = old !== null && (filter === undefined || filter(old));
    if (isIn) return { type: wasIn ? 'MODIFIED' : 'ADDED', revision, object: o };
    if (wasIn) return { type: 'DELETED', revision, object: old };
    return null;
  }
}
