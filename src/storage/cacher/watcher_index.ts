/**
 * Watchers indexed for dispatch, like upstream's indexedWatchers: by index
 * value (spec.nodeName=node-7, metadata.name=x) when the watcher has one, else
 * by namespace, else in the set of watchers that want everything. An event is
 * routed by its namespace and by both its old and its new index values, so a
 * pod moving onto a node reaches that node's watchers; a dispatch costs time
 * proportional to the interested watchers only.
 */
import type { WatchCacheEvent } from './watch_cache_event.js';

/** Where a watcher is filed. */
export interface WatcherRoute {
  /** Only objects in this namespace. */
  namespace?: string;
  /** Only objects whose indexer at `position` has `value` (before or after the change). */
  index?: { position: number; value: string };
}

/** What the index needs of a registered watcher. */
export interface Routable {
  readonly route: WatcherRoute;
  /** The last dispatch that reached it, to deliver an event once even when routed twice. */
  lastDispatch: number;
}

/** Watchers by namespace and by index value. */
export class WatcherIndex<R extends Routable> {
  private readonly all = new Set<R>();
  private readonly byNamespace = new Map<string, Set<R>>();
  private readonly byValue: Map<string, Set<R>>[];
  private count = 0;
  private seq = 0;

  constructor(indexCount: number) {
    this.byValue = Array.from({ length: indexCount }, () => new Map());
  }

  /** Registered watchers. */
  get size(): number {
    return this.count;
  }

  /** Files a watcher under its route. */
  add(r: R): void {
    const set = this.bucket(r.route, true)!;
    if (!set.has(r)) {
      set.add(r);
      this.count++;
    }
  }

  /** Removes a watcher. */
  remove(r: R): void {
    const set = this.bucket(r.route, false);
    if (set === undefined || !set.delete(r)) return;
    this.count--;
    if (set.size > 0 || set === this.all) return;
    const { namespace, index } = r.route;
    if (index !== undefined) this.byValue[index.position].delete(index.value);
    else if (namespace !== undefined) this.byNamespace.delete(namespace);
  }

  /** Calls `fn` once for every watcher that may want `ev`. */
  forEachInterested(ev: WatchCacheEvent, fn: (r: R) => void): void {
    const seq = ++this.seq;
    const visit = (set: Set<R> | undefined): void => {
      if (set === undefined) return;
      for (const r of set) {
        if (r.lastDispatch === seq) continue;
        r.lastDispatch = seq;
        fn(r);
      }
    };
    visit(this.all);
    const entry = ev.object ?? ev.prev!;
    visit(this.byNamespace.get(entry.namespace));
    for (let i = 0; i < this.byValue.length; i++) {
      const m = this.byValue[i];
      if (m.size === 0) continue;
      if (ev.object !== null) visit(m.get(ev.object.indexValue(i)));
      if (ev.prev !== null && (ev.object === null || ev.prev.indexValue(i) !== ev.object.indexValue(i)))
        visit(m.get(ev.prev.indexValue(i)));
    }
  }

  /** Every watcher (for stop, re-list and progress). */
  *[Symbol.iterator](): IterableIterator<R> {
    yield* this.all;
    for (const s of this.byNamespace.values()) yield* s;
    for (const m of this.byValue) for (const s of m.values()) yield* s;
  }

  private bucket(route: WatcherRoute, create: boolean): Set<R> | undefined {
    const { namespace, index } = route;
    let map: Map<string, Set<R>>;
    let key: string;
    if (index !== undefined) {
      map = this.byValue[index.position];
      key = index.value;
    } else if (namespace !== undefined) {
      map = this.byNamespace;
      key = namespace;
    } else return this.all;
    let set = map.get(key);
    if (set === undefined && create) map.set(key, (set = new Set()));
    return set;
  }
}
