/**
 * The cache's current state: entries sorted by key for prefix and paginated
 * walks (upstream's btreeStore), a map for point reads, and one secondary
 * index per indexer (value -> entries) so a kubelet's list by spec.nodeName
 * touches its own pods only. Updates of an existing key are O(log n);
 * creations and deletions shift the array, which stays cheap at 10^5 entries.
 */
import type { CachedObject } from './cached_object.js';

/** A sorted, indexed map of key -> CachedObject. */
export class SortedStore {
  private entries: CachedObject[] = [];
  private readonly byKey = new Map<string, CachedObject>();
  private readonly indexes: Map<string, Set<CachedObject>>[];

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
    const set = this.indexes[i].get(value);
    if (set === undefined) return [];
    return [...set].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private index(o: CachedObject): void {
    for (let i = 0; i < this.indexes.length; i++) {
      const v = o.indexValues[i];
      let set = this.indexes[i].get(v);
      if (set === undefined) this.indexes[i].set(v, (set = new Set()));
      set.add(o);
    }
  }

  private unindex(o: CachedObject): void {
    for (let i = 0; i < this.indexes.length; i++) {
      const set = this.indexes[i].get(o.indexValues[i]);
      if (set === undefined) continue;
      set.delete(o);
      if (set.size === 0) this.indexes[i].delete(o.indexValues[i]);
    }
  }
}
