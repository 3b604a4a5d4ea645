/**
 * A binary heap with keyed removal and update, like upstream's
 * backend/heap: the active and backoff queues need O(log n) push, pop and
 * delete-by-key.
 */

/** A keyed min-heap ordered by `less`. */
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (x: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  /** The smallest item without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds an item, or replaces (and re-sorts) the item with the same key. */
  push(x: T): void {
    const k = this.keyOf(x);
    const i = this.index.get(k);
    if (i !== undefined) {
      this.items[i] = x;
      this.fix(i);
      return;
    }
    this.items.push(x);
    this.index.set(k, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  /** Removes and returns the smallest item. */
  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    return this.removeAt(0);
  }

  /** Removes the item with `key`, if present. */
  delete(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.removeAt(i);
  }

  /** Every item, in no particular order. */
  values(): readonly T[] {
    return this.items;
  }

  private removeAt(i: number): T {
    const x = this.items[i];
    const last = this.items.pop()!;
    this.index.delete(this.keyOf(x));
    if (i < this.items.length) {
      this.items[i] = last;
      this.index.set(this.keyOf(last), i);
      this.fix(i);
    }
    return x;
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private up(i: number): boolean {
    const x = this.items[i];
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(x, this.items[p])) break;
      this.set(i, this.items[p]);
      i = p;
    }
    this.set(i, x);
    return i !== start;
  }

  private down(i: number): void {
    const n = this.items.length;
    const x = this.items[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.less(this.items[r], this.items[l]) ? r : l;
      if (!this.less(this.items[c], x)) break;
      this.set(i, this.items[c]);
      i = c;
    }
    this.set(i, x);
  }

  private set(i: number, x: T): void {
    this.items[i] = x;
    this.index.set(this.keyOf(x), i);
  }
}
