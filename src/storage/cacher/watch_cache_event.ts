/**
 * One change as the watch cache records it (upstream's watchCacheEvent): the
 * new and the previous entry, so a watcher can compute selector transitions
 * and a list at an older revision can undo it. Values are shared with the
 * cache's state, so the window costs little beyond the superseded versions.
 */
import type { WatchEvent } from '../interface.js';
import type { CachedObject, EncodedObject } from './cached_object.js';

/** A recorded put or delete. */
export class WatchCacheEvent {
  private prevShown: EncodedObject | undefined;
  private decodedNew: unknown;
  private decodedOld: unknown;

  constructor(
    readonly type: 'put' | 'delete',
    readonly key: string,
    readonly revision: number,
    /** The new entry (put); null for a delete. */
    readonly object: CachedObject | null,
    /** The entry before this change; null for a creation. */
    readonly prev: CachedObject | null,
    /** When the cache recorded it (ms on the cache's clock since the cache began), for window sizing. */
    readonly recordTime: number,
  ) {}

  /** The previous object shown at this event's revision, as DELETED events carry it; encoded once for all watchers. */
  prevAtEvent(): EncodedObject {
    if (this.prev === null) throw new Error(`event ${this.revision} on ${this.key} has no previous object`);
    return (this.prevShown ??= this.prev.at(this.revision));
  }

  /** The new object decoded, shared by every predicate during one dispatch; callers must not mutate it. */
  newDecoded(): unknown {
    if (this.object === null) return undefined;
    return (this.decodedNew ??= this.object.decode());
  }

  /** The previous object decoded, shared like newDecoded. */
  oldDecoded(): unknown {
    if (this.prev === null) return undefined;
    return (this.decodedOld ??= this.prev.decode());
  }

  /** Seeds the decoded new object (the indexers already parsed it). */
  seedDecoded(obj: unknown): void {
    this.decodedNew = obj;
  }

  /** Drops decoded objects after dispatch, so the window holds bytes only. */
  releaseDecoded(): void {
    this.decodedNew = undefined;
    this.decodedOld = undefined;
  }

  /**
   * The event in the Storage contract's shape, built per call: few watchers
   * take this shape (in-process storage watches), and a memo would keep two
   * more objects alive per event for the window's life.
   */
  toStorageEvent(): WatchEvent {
    const prevKv = this.prev === null ? undefined : this.prev.kv;
    let ev: WatchEvent;
    if (this.type === 'put') {
      ev = { type: 'put', revision: this.revision, key: this.key, kv: this.object!.kv };
    } else {
      const p = prevKv!;
      ev = {
        type: 'delete',
        revision: this.revision,
        key: this.key,
        kv: { key: this.key, value: p.value, createRevision: p.createRevision, modRevision: this.revision },
      };
    }
    if (prevKv !== undefined) ev.prevKv = prevKv;
    return ev;
  }
}
