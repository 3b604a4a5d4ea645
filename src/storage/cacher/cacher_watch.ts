/**
 * How the Cacher serves the object contract's watches (objects.ts): a watcher's
 * filter by namespace, index value and predicate, and selector transitions
 * applied to recorded events (upstream's cacheWatcher.convertToWatchEvent).
 */
import type { ObjectEvent, SelectorPredicate } from '../objects.js';
import type { CachedObject } from './cached_object.js';
import type { CacheWatcher } from './cache_watcher.js';
import type { Routable } from './watcher_index.js';
import type { WatchCacheEvent } from './watch_cache_event.js';

/** A watcher's filter, resolved against the configured indexers. */
export interface ObjectFilter {
  namespace?: string;
  index?: { position: number; value: string };
  predicate?: (obj: unknown) => boolean;
  /** The predicate as a test of the entry's index values, when its terms are all indexed fields (no decode). */
  indexedTerms?: readonly IndexedTerm[];
}

/** A field-selector term on an indexed field: the indexer's position, = or !=, and the value. */
export interface IndexedTerm {
  position: number;
  equal: boolean;
  value: string;
}

/**
 * The terms of a field-selector predicate as tests of index values, when every field it names is indexed (the
 * cache keeps those values beside each entry, as upstream's cacher keeps each object's fields); else undefined.
 */
export function indexedTermsOf(predicate: SelectorPredicate, indexNames: readonly string[]): IndexedTerm[] | undefined {
  const terms = predicate.fieldTerms;
  if (terms === undefined) return undefined;
  const out: IndexedTerm[] = [];
  for (const t of terms) {
    const position = indexNames.indexOf(t.field);
    if (position < 0) return undefined;
    out.push({ position, equal: t.operator === '=', value: t.value });
  }
  return out;
}

/** Whether an entry's index values pass every term. */
export function passesTerms(terms: readonly IndexedTerm[], entry: CachedObject): boolean {
  for (const t of terms) if ((entry.indexValue(t.position) === t.value) !== t.equal) return false;
  return true;
}

/** Whether an entry passes a filter; `decoded` is called only when a predicate needs the object. */
export function passes(f: ObjectFilter, entry: CachedObject, decoded: () => unknown): boolean {
  if (f.namespace !== undefined && entry.namespace !== f.namespace) return false;
  if (f.index !== undefined && entry.indexValue(f.index.position) !== f.index.value) return false;
  if (f.indexedTerms !== undefined) return passesTerms(f.indexedTerms, entry);
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
