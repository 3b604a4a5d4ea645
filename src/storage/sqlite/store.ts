/**
 * SqliteStorage: the embedded default backend. Reads run on the event loop
 * against a WAL snapshot; writes go to the writer thread in group commits;
 * watchers are fed directly from each acknowledged commit.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RealClock, type Clock, type Timer } from '../../clock/index.js';
import {
  checkValueSize,
  conflict,
  isStorageError,
  keyExists,
  keyNotFound,
  noSpace,
  StorageError,
  unavailable,
} from '../errors.js';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageStatus,
  TryUpdate,
  UpdateResult,
  WatchEvent,
  WatchOptions,
  Watcher,
} from '../interface.js';
import { lockDataDir, type DataDirLock } from './dir_lock.js';
import { ensureReserve, isDiskFull, releaseReserve } from './space_reserve.js';
import type { OpResult, WriteOp } from './protocol.js';
import { Reader } from './reader.js';
import { applyPragmas, SCHEMA, type SyncMode } from './schema.js';
import { WatchHub } from './watch_hub.js';
import { Writer, type WriterStats } from './writer.js';

/** Options of the embedded store; defaults follow etcd's and kube-apiserver's. */
export interface SqliteOptions {
  /** Directory holding `state.db` (kscale's --data-dir). */
  dataDir: string;
  /** `full` (default) acknowledges a write only after fsync, like etcd; `normal` trades that for speed (--storage-sync=normal). */
  sync?: SyncMode;
  /** etcd's --quota-backend-bytes: 2 GiB. */
  quotaBytes?: number;
  clock?: Clock;
  /** How often idle watchers get a progress event (ms). */
  progressIntervalMs?: number;
  /** How often keys with a TTL are swept (ms). */
  ttlSweepIntervalMs?: number;
  /** Log rows visited per compaction step (smaller: shorter writer waits). */
  compactionStep?: number;
  /** Buffered events per watcher before it is cut off as too slow. */
  watchCapacity?: number;
  /**
   * Told of every commit (transaction and fsync) that took `slowCommitMs` or
   * more: every write waits behind it, so a stalled fsync shows here. Also
   * told, at most once a second, of writes that waited that long for the
   * writer thread.
   */
  log?: { warn(fields: Record<string, unknown>, msg: string): void };
  /** The commit duration that counts as slow (default 1 s). */
  slowCommitMs?: number;
  /** Writes that may wait for the writer thread before more are refused with Busy (default 10,000). */
  maxQueuedWrites?: number;
  /** Tests of a full disk: SQLite's max_page_count. */
  maxPageCount?: number;
}

/** The database file inside a data dir. */
export const dbFile = (dataDir: string): string => join(dataDir, 'state.db');

/**
 * Opens (creating if needed) the embedded store. Fails with Unavailable on a corrupt or unreadable file. On a
 * disk too full to open, it frees the data dir's space reserve and opens with the NOSPACE alarm raised.
 */
export async function openSqliteStorage(opts: SqliteOptions): Promise<SqliteStorage> {
  mkdirSync(opts.dataDir, { recursive: true });
  ensureReserve(opts.dataDir);
  try {
    return await openOnce(opts, false);
  } catch (err) {
    if (!isDiskFull(err) || !releaseReserve(opts.dataDir)) throw err;
    opts.log?.warn(
      { dataDir: opts.dataDir },
      'storage: the disk is full; freed the space reserve to start with the NOSPACE alarm raised (writes refused)',
    );
    return await openOnce(opts, true);
  }
}

async function openOnce(opts: SqliteOptions, raiseNoSpace: boolean): Promise<SqliteStorage> {
  const file = dbFile(opts.dataDir);
  const sync = opts.sync ?? 'full';
  const lock = lockDataDir(opts.dataDir);
  try {
    // Create the schema synchronously first, so the file is valid before either connection uses it.
    const db = new Database(file);
    applyPragmas(db, sync);
    db.exec(SCHEMA);
    db.close();
  } catch (err) {
    lock.release();
    throw unavailable(`cannot open storage file ${file}: ${(err as Error).message}`, err);
  }
  let s: SqliteStorage | undefined;
  try {
    s = new SqliteStorage(file, opts, lock, raiseNoSpace);
    await s.ready();
  } catch (err) {
    if (s === undefined) lock.release();
    else await s.close().catch(() => lock.release());
    throw err;
  }
  return s;
}

/** The embedded store; see the module comment. */
export class SqliteStorage implements Storage {
  private readonly reader: Reader;
  private readonly writer: Writer;
  private readonly hub: WatchHub;
  private readonly clock: Clock;
  private readonly sweeper: Timer;
  private compacted: number;
  private noSpace: boolean;
  private readonly quotaBytes: number;
  private compacting: Promise<unknown> = Promise.resolve();
  private sweeping = false;
  private closed = false;
  /** The longest compaction step, for benchmarks. */
  maxCompactionStepMs = 0;
  private lastDefragMs: number | undefined;
  private readonly slowCommitMs: number;
  private lastSlowQueueLog = -Infinity;
  private readonly log: SqliteOptions['log'];

  constructor(
    private readonly file: string,
    opts: SqliteOptions,
    private readonly lock?: DataDirLock,
    /** Started on a full disk: refuse writes from the first one (the NOSPACE alarm). */
    raiseNoSpace = false,
  ) {
    this.clock = opts.clock ?? new RealClock();
    this.slowCommitMs = opts.slowCommitMs ?? 1_000;
    this.log = opts.log;
    this.quotaBytes = opts.quotaBytes ?? 2 * 1024 ** 3;
    const sync = opts.sync ?? 'full';
    this.reader = new Reader(file, sync);
    this.compacted = this.reader.compactedRevision();
    this.noSpace = this.reader.alarmRaised();
    this.hub = new WatchHub(
      this.reader,
      this.reader.revision(),
      this.clock,
      opts.progressIntervalMs ?? 5_000,
      opts.watchCapacity,
    );
    this.writer = new Writer(
      {
        file,
        sync,
        quotaBytes: this.quotaBytes,
        ...(opts.maxPageCount === undefined ? {} : { maxPageCount: opts.maxPageCount }),
        ...(raiseNoSpace ? { raiseNoSpace } : {}),
      },
      (batch) => this.onCommit(batch),
      (on) => (this.noSpace = on),
      (commitMs, writes) =>
        opts.log?.warn({ commitMs: Math.round(commitMs), writes }, 'storage commit slow: every write waited behind it'),
      opts.slowCommitMs,
      opts.maxQueuedWrites,
      (q) => {
        // At most one line a second: a backed-up queue makes every batch slow.
        const now = performance.now();
        if (now - this.lastSlowQueueLog < 1_000) return;
        this.lastSlowQueueLog = now;
        opts.log?.warn(
          {
            waitMs: Math.round(q.waitMs),
            queued: q.queued,
            lastCommitMs: Math.round(q.lastCommitMs),
            lastAnswerWaitMs: Math.round(q.lastAnswerWaitMs),
          },
          'storage writes waited for the writer thread',
        );
      },
    );
    this.compactionStep = opts.compactionStep ?? 500;
    this.prevOf = new WeakMap();
    this.sweeper = this.clock.setInterval(() => void this.sweep(), opts.ttlSweepIntervalMs ?? 1_000);
  }
  private readonly compactionStep: number;
  /** The value each in-flight update or delete replaces, for its watch event's prevKv. */
  private readonly prevOf: WeakMap<WriteOp, KeyValue>;

  /** Resolves once the writer thread answers. */
  async ready(): Promise<void> {
    try {
      await this.writer.call({ type: 'checkpoint' });
    } catch (err) {
      // A checkpoint the full disk refused: the writer is up, with the NOSPACE alarm raised.
      if (!isStorageError(err, 'NoSpace')) throw err;
    }
  }

  /** Group-commit counters. */
  get writerStats(): WriterStats {
    return this.writer.stats;
  }

  async currentRevision(): Promise<number> {
    return this.reader.revision();
  }

  /**
   * The revision of the last commit handed to watchers. Every acknowledged
   * write is at or below it (commits reach watchers before their writers
   * hear back), so a consistent read from the watch cache may wait for this
   * instead of querying the database; commits not yet acknowledged may lie beyond it.
   */
  acknowledgedRevision(): number {
    return this.hub.revision;
  }

  async get(key: string, opts?: GetOptions): Promise<KeyValue> {
    return this.reader.get(key, opts?.revision ?? 0, this.compacted);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.reader.list(prefix, opts, this.compacted);
  }

  async create(key: string, value: Buffer, opts?: CreateOptions): Promise<KeyValue> {
    checkValueSize(key, value);
    const r = await this.submit({ op: 'create', key, value, expires: this.expiry(opts?.ttlSeconds) });
    return { key, value, createRevision: r.created, modRevision: r.rev };
  }

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: GuaranteedUpdateOptions = {}): Promise<KeyValue> {
    // Like upstream's etcd3 GuaranteedUpdate with a cachedExistingObject: the first attempt may start from
    // the cache's copy; every outcome but a successful write is confirmed against storage before it counts.
    let cur: KeyValue | null | undefined = opts.cachedExisting;
    let current = cur === undefined;
    const read = (): KeyValue | null => {
      current = true;
      try {
        return this.reader.get(key, 0, this.compacted);
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'KeyNotFound' && opts.ignoreNotFound === true)) throw err;
        return null;
      }
    };
    for (;;) {
      if (cur === undefined) cur = read();
      const want = opts.precondition?.modRevision;
      if (want !== undefined && want !== 0 && cur !== null && cur.modRevision !== want) {
        if (current) throw conflict(key);
        cur = undefined;
        continue;
      }
      let next: UpdateResult;
      try {
        next = await tryUpdate(cur);
      } catch (err) {
        if (current) throw err;
        // The error may come from stale data: it stands only if storage still holds what was tried.
        const tried: KeyValue | null = cur;
        cur = read();
        if (cur?.modRevision === tried?.modRevision) throw err;
        continue;
      }
      checkValueSize(key, next.value);
      if (cur !== null && next.ttlSeconds === undefined && cur.value.equals(next.value)) {
        if (current) return cur;
        cur = undefined;
        continue;
      }
      const expires = this.expiry(next.ttlSeconds);
      const op: WriteOp =
        cur === null
          ? { op: 'create', key, value: next.value, expires }
          : { op: 'update', key, value: next.value, expectMod: cur.modRevision, expires };
      if (cur !== null) this.prevOf.set(op, cur);
      const r = await this.writer.write(op);
      if (r.ok) return { key, value: next.value, createRevision: r.created, modRevision: r.rev };
      // Someone else wrote in between (or the cached copy was stale): re-read and retry, like upstream's GuaranteedUpdate.
      if (
        r.code === 'Conflict' ||
        r.code === 'KeyExists' ||
        (r.code === 'KeyNotFound' && opts.ignoreNotFound === true)
      ) {
        cur = undefined;
        continue;
      }
      throw this.toError(key, r);
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KeyValue> {
    for (;;) {
      const cur = this.reader.get(key, 0, this.compacted);
      const want = opts.precondition?.modRevision;
      if (want !== undefined && want !== 0 && cur.modRevision !== want) throw conflict(key);
      if (opts.validate !== undefined) await opts.validate(cur);
      const op: WriteOp = { op: 'delete', key, expectMod: cur.modRevision };
      this.prevOf.set(op, cur);
      const r = await this.writer.write(op);
      if (r.ok) return { ...cur, modRevision: r.rev };
      if (r.code === 'Conflict') continue;
      throw this.toError(key, r);
    }
  }

  watch(prefix: string, opts: WatchOptions = {}): Watcher {
    return this.hub.watch(prefix, opts.fromRevision ?? 0, opts.progressNotify ?? true);
  }

  /** Sends a progress event to every idle watcher now (upstream's RequestWatchProgress). */
  requestProgress(): void {
    this.hub.requestProgress();
  }

  async compact(revision: number): Promise<void> {
    const run = this.compacting.then(async () => {
      if (revision <= this.compacted) return;
      const current = this.reader.revision();
      if (revision > current)
        throw new StorageError(
          'TooLargeResourceVersion',
          `cannot compact to ${revision}, current revision is ${current}`,
        );
      // Reads below the new floor fail from now on, before the rows are gone.
      this.compacted = revision;
      const r = await this.writer.call({ type: 'compact', revision, step: this.compactionStep });
      if (r.type === 'done') this.maxCompactionStepMs = Math.max(this.maxCompactionStepMs, r.maxStepMs ?? 0);
    });
    this.compacting = run.catch(() => undefined);
    return run;
  }

  async status(): Promise<StorageStatus> {
    let size = 0;
    for (const f of [this.file, this.file + '-wal']) {
      try {
        size += statSync(f).size;
      } catch {
        // The WAL may not exist between checkpoints.
      }
    }
    return {
      dbSizeBytes: size,
      quotaBytes: this.quotaBytes,
      alarms: this.noSpace ? ['NOSPACE'] : [],
      ...(this.writer.failure === null || this.closed ? {} : { writeFailure: this.writer.failure }),
      ...(this.lastDefragMs === undefined ? {} : { lastDefragmentMs: this.lastDefragMs }),
      writeQueue: { queued: this.writer.queued, rejected: this.writer.stats.rejected },
      currentRevision: this.reader.revision(),
      compactedRevision: this.compacted,
    };
  }

  /**
   * VACUUM on the writer thread, after it checked for free space. Every write
   * waits behind it; a VACUUM as slow as a slow commit is logged, and its
   * duration is in status() for metrics. It does not disarm NOSPACE.
   */
  async defragment(): Promise<void> {
    const r = await this.writer.call({ type: 'vacuum' });
    const ms = r.type === 'done' ? (r.vacuumMs ?? 0) : 0;
    this.lastDefragMs = ms;
    if (ms >= this.slowCommitMs)
      this.log?.warn({ vacuumMs: Math.round(ms) }, 'storage defragment (VACUUM) blocked every write while it ran');
  }

  /** Clears NOSPACE, like `etcdctl alarm disarm`; NoSpace while the database is still over its quota. */
  async disarmAlarms(): Promise<void> {
    await this.writer.call({ type: 'disarm' });
  }

  /** Arms or disarms a failpoint in the writer thread (its own copy of the failpoint table). */
  async setFailpoint(name: string, action: string | null): Promise<void> {
    await this.writer.call({ type: 'failpoint', name, action });
  }

  /** Truncates the WAL (SQLite's checkpoint), bounding its size. */
  async checkpoint(): Promise<void> {
    await this.writer.call({ type: 'checkpoint' });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sweeper.cancel();
    this.hub.close();
    await this.compacting;
    await this.writer.close();
    this.reader.close();
    this.lock?.release();
  }

  private expiry(ttlSeconds: number | undefined): number | null {
    return ttlSeconds === undefined || ttlSeconds <= 0 ? null : this.clock.now() + ttlSeconds * 1000;
  }

  private async submit(op: WriteOp): Promise<Extract<OpResult, { ok: true }>> {
    const r = await this.writer.write(op);
    if (!r.ok) throw this.toError(op.key, r);
    return r;
  }

  private toError(key: string, r: Extract<OpResult, { ok: false }>): StorageError {
    switch (r.code) {
      case 'KeyExists':
        return keyExists(key);
      case 'KeyNotFound':
        return keyNotFound(key);
      case 'Conflict':
        return conflict(key);
      case 'NoSpace':
        return noSpace();
      case 'Busy':
        return new StorageError('Busy', r.message ?? 'storage write queue is full', key);
      default:
        return unavailable(r.message ?? 'storage unavailable');
    }
  }

  /** Turns a committed batch into watch events, in revision order. */
  private onCommit(batch: { op: WriteOp; result: OpResult }[]): void {
    const events: WatchEvent[] = [];
    for (const { op, result } of batch) {
      if (!result.ok) continue;
      const pending = this.prevOf.get(op);
      this.prevOf.delete(op);
      events.push(this.toEvent(op, result, pending));
    }
    this.hub.dispatch(events);
  }

  private toEvent(op: WriteOp, r: Extract<OpResult, { ok: true }>, prev: KeyValue | undefined): WatchEvent {
    const value =
      op.op === 'delete'
        ? (prev?.value ?? Buffer.alloc(0))
        : Buffer.from(op.value.buffer, op.value.byteOffset, op.value.byteLength);
    const kv: KeyValue = { key: op.key, value, createRevision: r.created, modRevision: r.rev };
    return {
      type: op.op === 'delete' ? 'delete' : 'put',
      revision: r.rev,
      key: op.key,
      kv,
      ...(prev === undefined ? {} : { prevKv: prev }),
    };
  }

  private async sweep(): Promise<void> {
    if (this.closed) return;
    if (this.sweeping) {
      // A tick during a sweep runs once more afterwards, with the time of then.
      this.sweepAgain = true;
      return;
    }
    this.sweeping = true;
    try {
      const expired = await this.writer.expire(this.clock.now());
      this.hub.dispatch(
        expired.map((e) => {
          const prevKv: KeyValue = {
            key: e.key,
            value: Buffer.from(e.value),
            createRevision: e.created,
            modRevision: e.prevRev,
          };
          return {
            type: 'delete' as const,
            revision: e.rev,
            key: e.key,
            kv: { ...prevKv, modRevision: e.rev },
            prevKv,
          };
        }),
      );
    } catch {
      // The writer failed or closed; writes report it.
    } finally {
      this.sweeping = false;
    }
    if (this.sweepAgain) {
      this.sweepAgain = false;
      await this.sweep();
    }
  }
  private sweepAgain = false;
}
