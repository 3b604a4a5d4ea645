/**
 * The watch cache's memory watermark (--watch-cache-max-bytes): one budget
 * shared by every Cacher of a server. Each cache reports the bytes it holds
 * (its objects, and the superseded versions its event window keeps alive);
 * past the limit the budget first sheds the oldest event history, largest
 * windows first (so watches from old revisions get 410 Expired, as upstream
 * when a revision has left the window), and while the objects alone are over
 * it, clients' LISTs served from the cache are refused with 429 instead of the
 * heap growing until the process dies (the server's own lists are served). Upstream has no such bound; without the
 * flag no cache has a budget and nothing is counted.
 */

/** Bytes counted for one cached object beyond its key and value (entry, index values, tree node). */
export const OBJECT_OVERHEAD_BYTES = 256;
/** Bytes counted for one event in the window beyond the version it keeps alive. */
export const EVENT_OVERHEAD_BYTES = 128;

/** What the budget asks of one cache's event window. */
export interface SheddableHistory {
  /** Bytes its history holds now. */
  readonly historyBytes: number;
  /** Drops its oldest events until `bytes` are freed or it is empty; returns the events dropped. */
  shedOldest(bytes: number): number;
}

/** One server's watch cache watermark; `maxBytes` 0 is never built (no budget at all). */
export class WatchCacheMemoryBudget {
  private total = 0;
  private readonly windows = new Set<SheddableHistory>();
  /** Events shed to stay under the watermark, over all caches. */
  shedEvents = 0;
  /** LISTs refused while over it. */
  refusedLists = 0;

  constructor(readonly maxBytes: number) {
    if (!(maxBytes > 0)) throw new Error(`watch cache memory budget must be positive, not ${maxBytes}`);
  }

  /** Bytes held by every cache under this budget. */
  get heldBytes(): number {
    return this.total;
  }

  /** Adds a window whose history may be shed. */
  register(w: SheddableHistory): void {
    this.windows.add(w);
  }

  /** Forgets a window (its cache stopped); its bytes leave with `add(-bytes)` from its owner. */
  unregister(w: SheddableHistory): void {
    this.windows.delete(w);
  }

  /** Records a change of held bytes (negative when freed). */
  add(delta: number): void {
    this.total += delta;
  }

  /** Sheds the oldest history, largest windows first, until under the watermark or no history is left. */
  enforce(): void {
    if (this.total <= this.maxBytes) return;
    const largest = [...this.windows].sort((a, b) => b.historyBytes - a.historyBytes);
    for (const w of largest) {
      if (this.total <= this.maxBytes) return;
      if (w.historyBytes > 0) this.shedEvents += w.shedOldest(this.total - this.maxBytes);
    }
  }

  /** Whether a LIST from the cache must be refused: over the watermark even after shedding every history. */
  refuseList(): boolean {
    this.enforce();
    if (this.total <= this.maxBytes) return false;
    this.refusedLists++;
    return true;
  }
}
