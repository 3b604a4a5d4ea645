/**
 * ControllerExpectations, like pkg/controller/controller_utils.go: a
 * controller records how many creates and deletes it has asked for, and
 * skips acting on a key until its informer has observed them all, so a
 * lagging informer never makes it create (or delete) the same pods twice.
 * Expectations expire after five minutes, so a lost watch event cannot wedge
 * a controller forever.
 */
import type { Clock } from '../../clock/index.js';

/** Upstream's ExpectationsTimeout: expectations older than this count as satisfied. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

/** The outstanding adds and deletes of one controller key, and when they were set. */
export interface ControlleeExpectations {
  add: number;
  del: number;
  timestamp: number;
}

/** Per-key counters of pending creations and deletions. */
export class ControllerExpectations {
  private readonly store = new Map<string, ControlleeExpectations>();

  constructor(protected readonly clock: Clock) {}

  /** The expectations of `key`, if any were set. */
  get(key: string): ControlleeExpectations | undefined {
    return this.store.get(key);
  }

  /** True when every expected event arrived, none were set, or they expired (then the controller resyncs). */
  satisfiedExpectations(key: string): boolean {
    const e = this.store.get(key);
    if (e === undefined) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.clock.monotonic() - e.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }

  /** Forgets `key` (its controller object is gone). */
  deleteExpectations(key: string): void {
    this.store.delete(key);
  }

  /** Replaces the expectations of `key` and restarts its timeout. */
  setExpectations(key: string, add: number, del: number): void {
    this.store.set(key, { add, del, timestamp: this.clock.monotonic() });
  }

  /** Expects `adds` creations. */
  expectCreations(key: string, adds: number): void {
    this.setExpectations(key, adds, 0);
  }

  /** Expects `dels` deletions. */
  expectDeletions(key: string, dels: number): void {
    this.setExpectations(key, 0, dels);
  }

  /** Lowers the counts (an event observed, or a request that failed and will never be observed). */
  lowerExpectations(key: string, add: number, del: number): void {
    const e = this.store.get(key);
    if (e === undefined) return;
    e.add -= add;
    e.del -= del;
  }

  /** Raises the counts without restarting the timeout. */
  raiseExpectations(key: string, add: number, del: number): void {
    const e = this.store.get(key);
    if (e === undefined) return;
    e.add += add;
    e.del += del;
  }

  /** One expected creation was observed (or will never happen). */
  creationObserved(key: string): void {
    this.lowerExpectations(key, 1, 0);
  }

  /** One expected deletion was observed (or will never happen). */
  deletionObserved(key: string): void {
    this.lowerExpectations(key, 0, 1);
  }
}

/**
 * UIDTrackingControllerExpectations: deletions are tracked by pod key, so a
 * pod seen twice on its way out (once with a deletionTimestamp, once deleted)
 * lowers the count once, as upstream's ReplicaSet controller needs.
 */
export class UIDTrackingControllerExpectations extends ControllerExpectations {
  private readonly uids = new Map<string, Set<string>>();

  /** Expects the deletion of exactly these pods (their `namespace/name` keys). */
  expectDeletionsOf(key: string, deletedKeys: readonly string[]): void {
    this.uids.set(key, new Set(deletedKeys));
    this.expectDeletions(key, deletedKeys.length);
  }

  /** Observes the deletion of `deleteKey`; only the first observation of an expected pod counts. */
  deletionObservedOf(key: string, deleteKey: string): void {
    const set = this.uids.get(key);
    if (set === undefined || !set.delete(deleteKey)) return;
    this.deletionObserved(key);
  }

  /** The pod keys still expected to go. */
  getUIDs(key: string): ReadonlySet<string> | undefined {
    return this.uids.get(key);
  }

  override deleteExpectations(key: string): void {
    super.deleteExpectations(key);
    this.uids.delete(key);
  }
}
