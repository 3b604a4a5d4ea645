/**
 * The watch surface the API server uses beyond the Storage contract: typed
 * events with selector transitions applied and pre-encoded bytes, filtered by
 * namespace, an index value and a predicate (upstream's cacheWatcher.convertToWatchEvent).
 */
import type { CachedObject, EncodedObject } from './cached_object.js';
import type { CacheWatcher } from './cache_watcher.js';
import type { Routable, WatcherRoute } from './watcher_index.js';
import type { WatchCacheEvent } from './watch_cache_event.js';

/** Kubernetes watch event types. */
export type ObjectEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** One event for a watcher of objects. */
export interface ObjectEvent {
  type: ObjectEventType;
  /** The event's resourceVersion; for BOOKMARK, the revision the cache has reached. */
  revision: number;
  /**
   * The object as this event shows it: `bytes()` is its JSON with
   * metadata.resourceVersion set, encoded once and shared by every watcher.
   * DELETED shows the last state at the deletion's (or selector exit's)
   * revision. Null for BOOKMARK.
   */
  object: EncodedObject | null;
}

/** A running watch of objects; stopping it is explicit. */
export interface ObjectWatcher extends AsyncIterable<ObjectEvent> {
  stop(): void;
}

/** Options of Cacher.watchObjects. */
export interface ObjectWatchOptions {
  /**
   * Deliver every change after this revision (exclusive), like a watch from
   * resourceVersion R. It must be inside the cache's window, else the iterator
   * throws Expired (410); ahead of the cache, it waits up to 3 s, then throws
   * TooLargeResourceVersion. 0 or omitted: from the cache's current revision.
   */
  fromRevision?: number;
  /**
   * With fromRevision 0/omitted: first an ADDED event for every current
   * object that matches, as a watch from resourceVersion "0" (or unset) does.
   */
  initialEvents?: boolean;
  /** With fromRevision 0/omitted: first wait until the cache has reached storage's current revision (resourceVersion unset). */
  consistent?: boolean;
  /** Only objects in this namespace. */
  namespace?: string;
  /** Only objects whose indexer `name` has `value`, e.g. { name: 'spec.nodeName', value: 'node-7' }; the indexer must be configured. */
  index?: { name: string; value: string };
  /** Only objects that pass, tested on the decoded object before and after each change (label and other field selectors); must not mutate it. */
  predicate?: (obj: unknown) => boolean;
  /** Send BOOKMARK events (allowWatchBookmarks=true): about once a minute and about 2 s before `deadline`. */
  allowBookmarks?: boolean;
  /** Clock time (ms) when the API server will end this watch (its timeoutSeconds). */
  deadline?: number;
}

/** A watcher's filter, resolved against the configured indexers. */
export interface ObjectFilter {
  namespace?: string;
  index?: { position: number; value: string };
  predicate?: (obj: unknown) => boolean;
}

/** Whether an entry passes a filter; `decoded` is called only when a predicate needs the object. */
export function passes(f: ObjectFilter, entry: CachedObject, decoded: () => unknown): boolean {
  if (f.namespace !== undefined && entry.namespace !== f.namespace) return false;
  if (f.index !== undefined && entry.indexValue(f.index.position) !== f.index.value) return false;
  return f.predicate === undefined || f.predicate(decoded());
}

/** Translates a recorded change for one filter: entering it is ADDED, leaving it DELETED. */
export function toObjectEvent(f: ObjectFilter, ev: WatchCacheEvent): ObjectEvent | null {
  const cur = ev.object !== null && passes(f, ev.object, () => ev.newDecoded());
  const old = ev.prev !== null && passes(f, ev.prev, () => ev.oldDecoded());
  if (cur) return { type: old ? 'MODIFIED' : 'ADDED', revision: ev.revision, object: ev.object };
  if (old) return { type: 'DELETED', revision: ev.revision, object: ev.prevAtEvent() };
  return null;
}

/** Where a filter files its watcher: by index value first, since that is the narrowest bucket. */
export function routeOf(f: ObjectFilter): WatcherRoute {
  if (f.index !== undefined) return { index: f.index };
  if (f.namespace !== undefined) return { namespace: f.namespace };
  return {};
}

/** A watcher as the Cacher registers it. */
export interface Registration extends Routable {
  readonly watcher: CacheWatcher<unknown>;
  /** Converts and queues one live event. */
  deliver(ev: WatchCacheEvent): void;
  /** Queues a progress event or bookmark at `revision`. */
  notify?: (revision: number) => void;
  /** For bookmarks: when the watch ends (clock ms), if known. */
  deadline?: number;
}
