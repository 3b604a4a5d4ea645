/**
 * The storage contract: a key-value store with etcd v3 semantics, modelled on
 * kube-apiserver's storage.Interface (staging/src/k8s.io/apiserver/pkg/storage/interfaces.go).
 *
 * Revisions:
 * - One global revision counts every write (create, update, delete, TTL expiry).
 *   It only ever increases, also across restarts.
 * - Each live key has a createRevision (the write that created it) and a
 *   modRevision (the write that last changed it).
 * - A revision R names the state of the whole store after write R.
 * - compact(R) forgets every superseded version older than R. Reading at a
 *   revision below R, or watching from a revision below R, fails with Expired.
 *
 * Values are opaque bytes; the API server stores JSON.
 *
 * Two write options are hints between a watch cache and the store it decorates, never needed
 * for correctness: `object` (CreateOptions, UpdateResult) hands the cache the decoded object the
 * bytes encode, so it indexes the write's event without scanning the bytes; `cachedExisting`
 * (GuaranteedUpdateOptions) hands the store the cache's copy of the key as the first attempt's
 * starting point, like upstream's cachedExistingObject. A store may ignore both. The optional
 * methods at the end of Storage are capabilities some backends have; callers test for them.
 *
 * The API server reads objects through the object-level contract built on this one (objects.ts).
 */

/** One key as stored at some revision. */
export interface KeyValue {
  key: string;
  value: Buffer;
  /** The revision of the write that created this key (for this lifetime). */
  createRevision: number;
  /** The revision of the write that last changed this key. */
  modRevision: number;
}

export interface GetOptions {
  /**
   * Read the key as of this revision. Omitted or 0: the latest state.
   * Below the compacted revision: Expired. Above the current revision: the
   * latest state is not a valid answer, so it fails with TooLargeResourceVersion.
   */
  revision?: number;
}

export interface ListOptions {
  /**
   * Read as of this revision. Omitted or 0: the latest state (a consistent read).
   * When `continue` is given, the revision inside the token wins.
   */
  revision?: number;
  /** At most this many items; 0 or omitted means all. */
  limit?: number;
  /** An opaque token from an earlier page's `continue`. Every page of one list reads at the first page's revision. */
  continue?: string;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at (the first page's, for later pages). */
  revision: number;
  /** Set when more items remain; pass it back to read the next page. */
  continue?: string;
  /** How many items remain after this page, when the backend knows cheaply. */
  remainingItemCount?: number;
}

/** A write precondition: the key must currently be at exactly this mod revision. */
export interface Preconditions {
  modRevision?: number;
}

export interface CreateOptions {
  /** Delete the key this many seconds after the write, like an etcd lease (kube-apiserver's --event-ttl). */
  ttlSeconds?: number;
  /** The object `value` encodes, when the caller has it (see UpdateResult.object). */
  object?: unknown;
}

/**
 * Called with the current value (null when the key does not exist) and returns
 * the new value. Throwing aborts the update with that error. Returning
 * `{ ttlSeconds }` attaches a TTL. Like upstream's tryUpdate it may run more
 * than once, so it must be free of side effects.
 */
export type TryUpdate = (current: KeyValue | null) => Promise<UpdateResult> | UpdateResult;

export interface UpdateResult {
  value: Buffer;
  ttlSeconds?: number;
  /**
   * The object `value` encodes, when the caller has it: a watch cache in front of storage then
   * reads its index fields from it instead of scanning the bytes again. Storage ignores it.
   */
  object?: unknown;
}

export interface GuaranteedUpdateOptions {
  precondition?: Preconditions;
  /** When the key is missing, call tryUpdate with null (and create) instead of failing with KeyNotFound. */
  ignoreNotFound?: boolean;
  /**
   * A recent copy of the key's value (upstream's cachedExistingObject, from the watch cache) that the
   * first attempt may use instead of reading storage. It may be stale: a store that uses it re-reads
   * before it reports a failed precondition, a tryUpdate error or a no-op, and a conflicting write retries.
   */
  cachedExisting?: KeyValue;
}

export interface DeleteOptions {
  precondition?: Preconditions;
  /**
   * Called with the current value before deleting; throwing aborts the delete.
   * Like upstream's validateDeletion it may run more than once.
   */
  validate?: (current: KeyValue) => void | Promise<void>;
}

export interface WatchOptions {
  /**
   * Deliver every change with a revision strictly greater than this one, as a
   * Kubernetes watch from resourceVersion R delivers R+1 onward. 0 or omitted:
   * only changes after the watch starts.
   */
  fromRevision?: number;
  /** Send `progress` events while idle, so the watcher learns the current revision. Default true. */
  progressNotify?: boolean;
}

export type WatchEventType = 'put' | 'delete' | 'progress';

/** One change, in revision order. */
export interface WatchEvent {
  type: WatchEventType;
  /** The revision of this change (for progress: the store's current revision). */
  revision: number;
  /** Empty for progress events. */
  key: string;
  /** The new value (put), or the deleted value (delete). Absent for progress. */
  kv?: KeyValue;
  /** The value before this change; absent for creations. */
  prevKv?: KeyValue;
}

/**
 * A running watch. Iterate it with `for await`; the loop ends when the watch
 * is stopped, and throws (Expired, Unavailable, TooSlow) when the watch breaks.
 * Every event is delivered exactly once, in revision order.
 */
export interface Watcher extends AsyncIterable<WatchEvent> {
  stop(): void;
}

/** Health and space, for /healthz and metrics (etcd's alarm list and db size). */
export interface StorageStatus {
  /** Physical size of the database in bytes. */
  dbSizeBytes: number;
  /** Bytes in use (excluding free pages), when known. */
  dbSizeInUseBytes?: number;
  quotaBytes: number;
  /** Active alarms, like etcd's NOSPACE. */
  alarms: string[];
  /** Why the store refuses every write (its writer thread died), when it does; /healthz fails with it. */
  writeFailure?: string;
  /** How long the last defragment blocked writes (the embedded store's VACUUM), in ms. */
  lastDefragmentMs?: number;
  /** The embedded store's bounded write queue: writes waiting, and writes refused (429) because it was full. */
  writeQueue?: { queued: number; rejected: number };
  currentRevision: number;
  compactedRevision: number;
}

/** The storage contract every backend and the cacher implement. */
/** What Storage.freshness found. */
export interface Freshness {
  /** Storage's current revision, read with a quorum read. */
  revision: number;
  /** Whether the prefix holds exactly the reader's state: no key modified after `since`, none deleted. */
  unchanged: boolean;
}

export interface Storage {
  /** The latest revision of the whole store. */
  currentRevision(): Promise<number>;

  /** Read one key; KeyNotFound when missing at that revision. */
  get(key: string, opts?: GetOptions): Promise<KeyValue>;

  /**
   * Read every key under `prefix` (which must end with '/'), ordered by key.
   * The result carries the revision it was read at.
   */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;

  /** Create a key; KeyExists when it is already live. Returns the stored key. */
  create(key: string, value: Buffer, opts?: CreateOptions): Promise<KeyValue>;

  /**
   * Read-modify-write with compare-and-swap on the mod revision, retried on
   * conflict, like upstream's GuaranteedUpdate. A failed precondition is Conflict.
   * A tryUpdate that returns a value equal to the current one writes nothing
   * and returns the current key (no new revision), as upstream does.
   */
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: GuaranteedUpdateOptions): Promise<KeyValue>;

  /** Delete a key; KeyNotFound when missing, Conflict on a failed precondition. Returns the deleted value, with the delete's revision as modRevision. */
  delete(key: string, opts?: DeleteOptions): Promise<KeyValue>;

  /** Watch every key under `prefix` from a revision; see WatchOptions. Expired (thrown from the iterator) when that revision is compacted. */
  watch(prefix: string, opts?: WatchOptions): Watcher;

  /** Forget superseded versions older than `revision`. Compacting at or below the compacted revision is a no-op. */
  compact(revision: number): Promise<void>;

  /** Space, alarms and revisions. */
  status(): Promise<StorageStatus>;

  /** Reclaim free space (etcd's defrag, SQLite's VACUUM). A NOSPACE alarm stays raised until `disarmAlarms`. */
  defragment(): Promise<void>;

  /** Clear the NOSPACE alarm, like `etcdctl alarm disarm`; writes are refused until then. */
  disarmAlarms(): Promise<void>;

  /** Release resources; pending writes are completed or failed first. */
  close(): Promise<void>;

  // ---- optional capabilities: a backend that has one implements it, callers test for it ----

  /**
   * Send a progress event to every idle watcher now (upstream's RequestWatchProgress), so a watch
   * cache can tell it has reached storage's revision. Only backends with reliable progress on
   * request have it (the embedded store; etcd >= 3.4.31): without it the watch cache sends
   * consistent reads to storage, as upstream does for older etcd.
   */
  requestProgress?(): void;

  /**
   * A revision at or above every write acknowledged so far, known without a round trip (the
   * embedded store: the last commit it handed to watchers). A consistent read needs no more than
   * that; etcd's quorum revision read serves the same purpose over the network.
   */
  acknowledgedRevision?(): number;

  /**
   * A quorum read of storage's current revision that also tells whether nothing under `prefix`
   * changed after `since`, for a reader holding `count` keys there as of `since` (etcd: one
   * read-only transaction counting the prefix and looking for a key modified after `since`).
   * A watch cache that has not seen that revision yet may then answer a consistent read as
   * well, as a progress notification would let it, on etcd versions whose progress on request
   * is unreliable (below 3.4.31).
   */
  freshness?(prefix: string, since: number, count: number): Promise<Freshness>;

  /** Bound the write-ahead log (the embedded store truncates SQLite's WAL); the server runs it after compaction. */
  checkpoint?(): Promise<void>;

  /**
   * Arm (an action in KSCALE_FAILPOINTS' form) or disarm (null) a failpoint in the store's own threads (the
   * embedded store's writer), for the server's /debug/failpoints endpoint; throws on a bad action.
   */
  setFailpoint?(name: string, action: string | null): Promise<void>;
}
