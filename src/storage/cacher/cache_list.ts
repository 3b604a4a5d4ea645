/**
 * Lists from the watch cache: a walk over the sorted state (or over one
 * index's entries), filtered while walking so nothing is copied that is not
 * returned, paginated with continue tokens in the shared format, and readable
 * at an older revision inside the window by undoing the newer events.
 */
import { prefixEnd } from '../continue.js';
import type { CachedObject } from './cached_object.js';
import { passesTerms, type IndexedTerm } from './cacher_watch.js';
import type { WatchCache } from './watch_cache.js';

/** What to list. */
export interface CacheListRequest {
  /** Keys must start with this (the resource prefix, or a namespace under it). */
  prefix: string;
  /** The revision to read at: the cache's own, or an older one inside the window. */
  revision: number;
  /** Resume at this key (from a continue token). */
  startKey?: string;
  /** At most this many items; 0 means all. */
  limit: number;
  /** Only entries whose indexer at `position` has `value`. */
  index?: { position: number; name: string; value: string };
  /** Only entries whose decoded object passes. */
  predicate?: (obj: unknown) => boolean;
  /** The predicate as a test of index values (see cacher_watch.ts); tested instead of decoding. */
  indexedTerms?: readonly IndexedTerm[];
}

/** A page from the cache. */
export interface CacheListPage {
  items: CachedObject[];
  /** The first key of the next page, when more items match. */
  nextKey?: string;
  /** Items after this page, when known cheaply (no filter). */
  remaining?: number;
  /** Entries examined, for apiserver_cache_list_fetched_objects_total. */
  fetched: number;
}

const byKey = (a: CachedObject, b: CachedObject): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Lists `req` from `wc`; the caller has checked that `req.revision` is inside the window. */
export function listFromCache(wc: WatchCache, req: CacheListRequest): CacheListPage {
  const start = req.startKey !== undefined && req.startKey > req.prefix ? req.startKey : req.prefix;
  const candidates =
    req.revision >= wc.revision ? currentCandidates(wc, req, start) : historicalCandidates(wc, req, start);
  const out: CachedObject[] = [];
  let fetched = 0;
  const pass = (o: CachedObject): boolean => {
    fetched++;
    if (req.index !== undefined && o.indexValue(req.index.position) !== req.index.value) return false;
    if (req.indexedTerms !== undefined) return passesTerms(req.indexedTerms, o);
    return req.predicate === undefined || req.predicate(o.decode());
  };
  for (let next = candidates.next(); !next.done; next = candidates.next()) {
    const o = next.value;
    if (!pass(o)) continue;
    if (req.limit > 0 && out.length === req.limit) {
      const page: CacheListPage = { items: out, nextKey: o.key, fetched };
      if (req.index === undefined && req.predicate === undefined) page.remaining = 1 + count(candidates);
      return page;
    }
    out.push(o);
  }
  return { items: out, fetched };
}

function count(it: Iterator<CachedObject>): number {
  let n = 0;
  for (let r = it.next(); !r.done; r = it.next()) n++;
  return n;
}

/** The current state under the prefix from `start`, in key order. */
function* currentCandidates(wc: WatchCache, req: CacheListRequest, start: string): Generator<CachedObject> {
  if (req.index !== undefined) {
    for (const o of wc.store.byIndex(req.index.name, req.index.value)) {
      if (o.key >= start && o.key.startsWith(req.prefix)) yield o;
    }
    return;
  }
  const end = prefixEnd(req.prefix);
  for (const o of wc.store.from(start)) {
    if (o.key >= end) return;
    yield o;
  }
}

/** The state at an older revision: current entries merged with the undone ones, in key order. */
function* historicalCandidates(wc: WatchCache, req: CacheListRequest, start: string): Generator<CachedObject> {
  const undo = wc.undoSince(req.revision);
  const end = prefixEnd(req.prefix);
  const restored: CachedObject[] = [];
  for (const [key, o] of undo) if (o !== null && key >= start && key < end) restored.push(o);
  restored.sort(byKey);
  let r = 0;
  for (const o of wc.store.from(start)) {
    if (o.key >= end) break;
    while (r < restored.length && restored[r].key < o.key) yield restored[r++];
    if (undo.has(o.key)) continue; // changed since: its old version (if any) comes from `restored`
    yield o;
  }
  while (r < restored.length) yield restored[r++];
}
