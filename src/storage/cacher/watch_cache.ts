/**
 * The watch cache of one resource (upstream's watchCache): the current state,
 * the window of recent events, and the revision the cache has reached, which
 * advances with every event and every progress notification. Readers wait
 * here until the cache is fresh enough (waitUntilFreshAndBlock), and lists at
 * an older revision inside the window are answered by undoing newer events.
 */
import type { Clock, Timer } from '../../clock/index.js';
import { tooLargeResourceVersion } from '../errors.js';
import type { KeyValue, WatchEvent } from '../interface.js';
import type { Indexer } from '../objects.js';
import { CachedObject, jsonCodec, namespaceOfKey, StringTable, type ObjectCodec } from './cached_object.js';
import { compileJsonPath, jsonStringFields, type JsonPath } from './json_field.js';
import { EventWindow, type WindowSizing } from './event_window.js';
import { OBJECT_OVERHEAD_BYTES, type WatchCacheMemoryBudget } from './memory_budget.js';
import { SortedStore } from './sorted_store.js';
import { WatchCacheEvent } from './watch_cache_event.js';

/** A field the cache indexes its objects and watchers by (see the contract's Indexer). */
export type { Indexer } from '../objects.js';

/** At most this many writes' index values wait for their events (see noteWritten). */
const MAX_WRITTEN_NOTES = 10_000;

interface Waiter {
  revision: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  timer: Timer;
}

/** Bytes counted for one cached object under a memory budget. */
const objectBytes = (o: CachedObject): number => OBJECT_OVERHEAD_BYTES + o.key.length + o.size;

/** State, window and revision of one resource. */
export class WatchCache {
  readonly store: SortedStore;
  window: EventWindow;
  private rev = 0;
  private waiters: Waiter[] = [];
  /** The indexers' compiled paths, or null when some indexer needs a decode. */
  private readonly paths: JsonPath[] | null;
  /**
   * Events record their time in ms since this clock reading: a small integer is
   * stored in the event itself, where a time since the epoch would be a boxed
   * number, one more heap object per event for every major GC to mark.
   */
  private readonly epoch: number;
  /** Index values of objects written through this server, by key, until the write's event arrives. */
  private readonly written = new Map<string, { value: Buffer; values: string[] }>();
  /** One string per value of the shared indexers. */
  private readonly shared = new StringTable();
  /** Bytes of the objects held, under a memory budget. */
  private stateBytes = 0;

  constructor(
    readonly resourcePrefix: string,
    readonly indexers: readonly Indexer[],
    readonly codec: ObjectCodec,
    private readonly clock: Clock,
    private readonly sizing: WindowSizing,
    /** --watch-cache-max-bytes, shared by every cache of the server; undefined: nothing is counted. */
    private readonly budget?: WatchCacheMemoryBudget,
  ) {
    this.store = new SortedStore(indexers.map((i) => i.name));
    // Paths only help the JSON codec: another codec's bytes are not JSON.
    this.paths =
      codec === jsonCodec && indexers.every((i) => i.path !== undefined)
        ? indexers.map((i) => compileJsonPath(i.path!))
        : null;
    this.window = new EventWindow(sizing, 0, budget);
    this.epoch = clock.now();
  }

  /** The revision the cache has reached: every change up to it is applied. */
  get revision(): number {
    return this.rev;
  }

  /**
   * Builds a live entry with its index values: read straight from the JSON when every
   * indexer has a path, else from a decode, which is then returned too.
   */
  makeObject(kv: KeyValue): { obj: CachedObject; decoded: unknown } {
    const noted = this.takeNoted(kv);
    let decoded: unknown;
    let values: string[] = [];
    if (this.indexers.length > 0) {
      const fast = noted ?? (this.paths === null ? undefined : jsonStringFields(kv.value, this.paths));
      if (fast !== undefined) values = fast;
      else {
        decoded = this.codec.decode(kv.value);
        values = this.indexers.map((ix) => ix.fn(decoded));
      }
    }
    for (let i = 0; i < values.length; i++)
      if (this.indexers[i]!.shared === true) values[i] = this.shared.intern(values[i]!);
    return { obj: new CachedObject(kv, namespaceOfKey(this.resourcePrefix, kv.key), values, this.codec), decoded };
  }

  /**
   * Notes the index values of `object`, which a write through this server is about to store
   * under `key` as `value` (its encoding). The write's event is then indexed from them, as long as
   * its bytes are exactly `value`; the next event for the key drops the note either way.
   */
  noteWritten(key: string, value: Buffer, object: unknown): void {
    if (this.indexers.length === 0) return;
    // Notes of writes that failed stay until their key is written again; never let them pile up.
    if (this.written.size >= MAX_WRITTEN_NOTES) this.written.clear();
    this.written.set(key, { value, values: this.indexers.map((ix) => ix.fn(object)) });
  }

  /** The noted index values for this record, when its bytes are the noted ones. */
  private takeNoted(kv: KeyValue): string[] | undefined {
    if (this.written.size === 0) return undefined;
    const note = this.written.get(kv.key);
    if (note === undefined) return undefined;
    this.written.delete(kv.key);
    return note.value === kv.value || note.value.equals(kv.value) ? note.values : undefined;
  }

  /** Replaces state and window with a fresh list at `revision` (upstream's Replace). */
  replace(items: KeyValue[], revision: number): void {
    const objs = items.map((kv) => this.makeObject(kv).obj);
    this.store.replace(objs);
    if (this.budget !== undefined) {
      const bytes = objs.reduce((n, o) => n + objectBytes(o), 0);
      this.budget.add(bytes - this.stateBytes);
      this.stateBytes = bytes;
    }
    this.window.reset(revision);
    this.rev = revision;
    this.wake();
  }

  /** Applies one storage event; returns the recorded event, or null for progress and duplicates. */
  processEvent(ev: WatchEvent): WatchCacheEvent | null {
    if (ev.revision <= this.rev) return null; // a replayed duplicate after a watch restart
    if (ev.type === 'progress') {
      this.advance(ev.revision);
      return null;
    }
    const prev = this.store.get(ev.key) ?? null;
    // Gap detection: storage's previous value of the key must be the one the cache holds. When it is not,
    // an event was lost (etcd's client can drop a replay silently), and the cache must re-list, not serve.
    if (ev.prevKv !== undefined && (prev === null || prev.revision !== ev.prevKv.modRevision))
      throw new WatchGapError(ev.key, prev?.revision ?? null, ev.prevKv.modRevision, ev.revision);
    let recorded: WatchCacheEvent | null = null;
    const now = Math.round(this.clock.now() - this.epoch);
    if (ev.type === 'put') {
      const { obj, decoded } = this.makeObject(ev.kv!);
      this.store.put(obj);
      if (this.budget !== undefined) this.countState(objectBytes(obj) - (prev === null ? 0 : objectBytes(prev)));
      recorded = new WatchCacheEvent('put', ev.key, ev.revision, obj, prev, now);
      if (decoded !== undefined) recorded.seedDecoded(decoded);
    } else if (prev !== null) {
      this.store.delete(ev.key);
      if (this.budget !== undefined) this.countState(-objectBytes(prev));
      recorded = new WatchCacheEvent('delete', ev.key, ev.revision, null, prev, now);
    }
    if (recorded !== null) this.window.push(recorded, now);
    this.advance(ev.revision);
    return recorded;
  }

  /** Bytes held by the state and the window (counted only under a memory budget). */
  get heldBytes(): number {
    return this.stateBytes + this.window.historyBytes;
  }

  /** Gives back to the memory budget everything this cache counted (the cache is stopping). */
  release(): void {
    if (this.budget === undefined) return;
    this.budget.add(-this.stateBytes);
    this.stateBytes = 0;
    this.window.release();
  }

  private countState(delta: number): void {
    this.stateBytes += delta;
    this.budget!.add(delta);
  }

  /** Moves the revision forward (a progress notification) and wakes waiting readers. */
  advance(revision: number): void {
    if (revision <= this.rev) return;
    this.rev = revision;
    this.wake();
  }

  /** Resolves once the cache reaches `revision`; after `timeoutMs`, TooLargeResourceVersion (upstream's 3 s). */
  waitUntilFresh(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.rev) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        revision,
        resolve,
        reject,
        timer: this.clock.setTimeout(() => {
          this.waiters = this.waiters.filter((x) => x !== w);
          reject(tooLargeResourceVersion(revision, this.rev));
        }, timeoutMs),
      };
      this.waiters.push(w);
    });
  }

  /** Whether any reader waits for a newer revision (the progress requester polls while so). */
  get hasWaiters(): boolean {
    return this.waiters.length > 0;
  }

  /** Fails every waiter (the cacher stops). */
  failWaiters(err: unknown): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) {
      w.timer.cancel();
      w.reject(err);
    }
  }

  /**
   * The state at an older `revision` inside the window for every key changed
   * since: the previous entry of its first later event, or null when the key
   * did not exist then. Keys not in the map are unchanged.
   */
  undoSince(revision: number): Map<string, CachedObject | null> {
    const out = new Map<string, CachedObject | null>();
    for (let i = this.window.firstAfter(revision); i < this.window.end; i++) {
      const ev = this.window.at(i);
      if (!out.has(ev.key)) out.set(ev.key, ev.prev);
    }
    return out;
  }

  /** The entry of `key` as of `revision` (inside the window), or null when it did not exist. */
  getAt(key: string, revision: number): CachedObject | null {
    for (let i = this.window.firstAfter(revision); i < this.window.end; i++) {
      const ev = this.window.at(i);
      if (ev.key === key) return ev.prev;
    }
    return this.store.get(key) ?? null;
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.revision <= this.rev) {
        w.timer.cancel();
        w.resolve();
      } else keep.push(w);
    }
    this.waiters = keep;
  }
}

/** An event whose previous value the cache does not hold: events were lost, and the cache re-lists. */
export class WatchGapError extends Error {
  constructor(
    readonly key: string,
    readonly cached: number | null,
    readonly storagePrev: number,
    readonly revision: number,
  ) {
    super(
      `watch gap on ${key} at revision ${revision}: storage's previous value is at ${storagePrev}, the cache's at ${cached ?? 'none'}`,
    );
    this.name = 'WatchGapError';
  }
}
