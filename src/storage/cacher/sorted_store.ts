/**
 * The cache's current state: entries sorted by key for prefix and paginated
 * walks (upstream's btreeStore), a map for point reads, and one secondary
 * index per indexer (value -> entries) so a kubelet's list by spec.nodeName
 * touches its own pods only. Updates of an existing key are O(log n);
 * creations and deletions shift the array, which stays cheap at 10^5 entries.
 * An index value held by one entry maps to that entry, not to a Set of one:
 * metadata.name is unique for most objects, and a Set per object doubled
 * what each major GC marks.
 */
import type { CachedObject } from './cached_object.js';

/** A sorted, indexed map of key -> CachedObject. */
export class SortedStore {
  private entries: CachedObject[] = [];
  private readonly byKey = new Map<string, CachedObject>();
  private readonly indexes: Map<string, CachedObject | Set<CachedObject>>[];

  constructor(readonly indexNames: readonly string[]) {
    this.indexes = indexNames.map(() => new Map());
  }

  /** Number of entries. */
  get size(): number {
    return this.entries.length;
  }

  /** The entry of `key`, if any. */
  get(key: string): CachedObject | undefined {
    return this.byKey.get(key);
  }

  /** Inserts or replaces the entry of `obj.key`. */
  put(obj: CachedObject): void {
    const old = this.byKey.get(obj.key);
    this.byKey.set(obj.key, obj);
    const i = this.lowerBound(obj.key);
    if (old !== undefined) {
      this.entries[i] = obj;
      this.unindex(old);
    } else {
      this.entries.splice(i, 0, obj);
    }
    this.index(obj);
  }

  /** Removes `key`; returns the removed entry. */
  delete(key: string): CachedObject | undefined {
    const old = this.byKey.get(key);
    if (old === undefined) return undefined;
    this.byKey.delete(key);
    this.entries.splice(this.lowerBound(key), 1);
    this.unindex(old);
    return old;
  }

  /** Replaces everything (a re-list); `sorted` must be ordered by key. */
  replace(sorted: CachedObject[]): void {
    this.entries = sorted;
    this.byKey.clear();
    for (const m of this.indexes) m.clear();
    for (const o of sorted) {
      this.byKey.set(o.key, o);
      this.index(o);
    }
  }

  /** The position of the first entry whose key is >= `key`. */
  lowerBound(key: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The entry at a position from lowerBound. */
  at(i: number): CachedObject | undefined {
    return this.entries[i];
  }

  /** Every entry whose key starts with `prefix`, in key order (a copy, safe to hold while the store changes). */
  range(prefix: string): CachedObject[] {
    const out: CachedObject[] = [];
    for (let i = this.lowerBound(prefix); i < this.entries.length && this.entries[i].key.startsWith(prefix); i++) out.push(this.entries[i]);
    return out;
  }

  /** Entries whose indexer `name` has `value`, in key order. */
  byIndex(name: string, value: string): CachedObject[] {
    const i = this.indexNames.indexOf(name);
    if (i < 0) throw new Error(`no indexer ${name}`);
    const held = this.indexes[i].get(value);
    if (held === undefined) return [];
    if (!(held instanceof Set)) return [held];
    return [...held].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private index(o: CachedObject): void {
    for (let i = 0; i < this.indexes.length; i++) {
      const m = this.indexes[i];
      const v = o.indexValues[i];
      const held = m.get(v);
      if (held === undefined) m.set(v, o);
      else if (held instanceof Set) held.add(o);
      else if (held !== o) m.set(v, new Set([held, o]));
    }
  }

  private unindex(o: CachedObject): void {
    for (let i = 0; i < this.indexes.length; i++) {
      const m = this.indexes[i];
      const v = o.indexValues[i];
      const held = m.get(v);
      if (held === o) m.delete(v);
      else if (held instanceof Set) {
        held.delete(o);
        // Back to the single entry once only one holds the value.
        if (held.size === 1) m.set(v, held.values().next().value!);
      }
    }
  }
}
