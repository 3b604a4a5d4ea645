/**
 * The cache's current state: entries sorted by key for prefix and paginated
 * walks (upstream's btreeStore), a map for point reads, and one secondary
 * index per indexer (value -> entries) so a kubelet's list by spec.nodeName
 * touches its own pods only. The sorted entries are kept in blocks of at most
 * BLOCK_MAX, so a creation or deletion shifts one block, not the whole list:
 * one flat array cost ~58 µs per creation at 80,000 pods (every entry after
 * the new key moved, as with the random suffixes of generated pod names),
 * ~11% of a core at 1,900 creates/s; the blocks keep it to a few µs.
 * An index value held by one entry maps to that entry, not to a Set of one:
 * metadata.name is unique for most objects, and a Set per object doubled
 * what each major GC marks.
 */
import type { CachedObject } from './cached_object.js';

/** Entries per block before it is split in two. */
const BLOCK_MAX = 512;

/** The position of the first entry of `list` whose key is >= `key` (`strict`: > `key`). */
function search(list: readonly CachedObject[], key: string, strict = false): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = list[mid]!.key;
    if (k < key || (strict && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A sorted, indexed map of key -> CachedObject. */
export class SortedStore {
  /** Non-empty blocks, each sorted, every key of one below every key of the next. */
  private blocks: CachedObject[][] = [];
  private count = 0;
  /** Bumped whenever entries move between positions (a creation, a deletion, a replace): walks then seek again. */
  private moves = 0;
  private readonly byKey = new Map<string, CachedObject>();
  private readonly indexes: Map<string, CachedObject | Set<CachedObject>>[];

  constructor(readonly indexNames: readonly string[]) {
    this.indexes = indexNames.map(() => new Map());
  }

  /** Number of entries. */
  get size(): number {
    return this.count;
  }

  /** The entry of `key`, if any. */
  get(key: string): CachedObject | undefined {
    return this.byKey.get(key);
  }

  /** Inserts or replaces the entry of `obj.key`. */
  put(obj: CachedObject): void {
    const old = this.byKey.get(obj.key);
    this.byKey.set(obj.key, obj);
    const b = this.blockOf(obj.key);
    if (b < 0) {
      this.blocks.push([obj]);
    } else {
      const block = this.blocks[b]!;
      const i = search(block, obj.key);
      if (old !== undefined) block[i] = obj;
      else {
        block.splice(i, 0, obj);
        if (block.length > BLOCK_MAX) this.blocks.splice(b + 1, 0, block.splice(block.length >>> 1));
      }
    }
    if (old !== undefined) this.unindex(old);
    else {
      this.count++;
      this.moves++;
    }
    this.index(obj);
  }

  /** Removes `key`; returns the removed entry. */
  delete(key: string): CachedObject | undefined {
    const old = this.byKey.get(key);
    if (old === undefined) return undefined;
    this.byKey.delete(key);
    const b = this.blockOf(key);
    const block = this.blocks[b]!;
    block.splice(search(block, key), 1);
    if (block.length === 0) this.blocks.splice(b, 1);
    this.count--;
    this.moves++;
    this.unindex(old);
    return old;
  }

  /** Replaces everything (a re-list); `sorted` must be ordered by key. */
  replace(sorted: CachedObject[]): void {
    this.blocks = [];
    for (let i = 0; i < sorted.length; i += BLOCK_MAX / 2) this.blocks.push(sorted.slice(i, i + BLOCK_MAX / 2));
    this.count = sorted.length;
    this.moves++;
    this.byKey.clear();
    for (const m of this.indexes) m.clear();
    for (const o of sorted) {
      this.byKey.set(o.key, o);
      this.index(o);
    }
  }

  /**
   * The entries from the first whose key is >= `start`, in key order. A walk may span changes to the store: it
   * goes on after the last key it gave (an entry created behind it is not seen, one created ahead of it is).
   */
  *from(start: string): Generator<CachedObject, void, undefined> {
    let { block, offset } = this.seek(start, false);
    let moves = this.moves;
    let last: string | undefined;
    for (;;) {
      if (moves !== this.moves) {
        ({ block, offset } = last === undefined ? this.seek(start, false) : this.seek(last, true));
        moves = this.moves;
      }
      const b = this.blocks[block];
      if (b === undefined) return;
      if (offset >= b.length) {
        block++;
        offset = 0;
        continue;
      }
      const o = b[offset++]!;
      last = o.key;
      yield o;
    }
  }

  /** Every entry whose key starts with `prefix`, in key order (a copy, safe to hold while the store changes). */
  range(prefix: string): CachedObject[] {
    const out: CachedObject[] = [];
    for (const o of this.from(prefix)) {
      if (!o.key.startsWith(prefix)) break;
      out.push(o);
    }
    return out;
  }

  /** The block and offset of the first key >= `key` (> with `strict`); past the last block when there is none. */
  private seek(key: string, strict: boolean): { block: number; offset: number } {
    const b = this.blockOf(key);
    if (b < 0) return { block: 0, offset: 0 };
    const offset = search(this.blocks[b]!, key, strict);
    // Past the end of the block (a strict seek of its last key, a key above all): the next block's first entry.
    return offset < this.blocks[b]!.length ? { block: b, offset } : { block: b + 1, offset: 0 };
  }

  /** The block that holds `key` or would: the first whose last key is >= `key`, else the last; -1 when empty. */
  private blockOf(key: string): number {
    const n = this.blocks.length;
    if (n === 0) return -1;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid]!;
      if (block[block.length - 1]!.key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
      const v = o.indexValue(i);
      const held = m.get(v);
      if (held === undefined) m.set(v, o);
      else if (held instanceof Set) held.add(o);
      else if (held !== o) m.set(v, new Set([held, o]));
    }
  }

  private unindex(o: CachedObject): void {
    for (let i = 0; i < this.indexes.length; i++) {
      const m = this.indexes[i];
      const v = o.indexValue(i);
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
