/**
 * The writer thread. better-sqlite3 is synchronous, so every commit (and its
 * fsync), checkpoint, compaction step and VACUUM runs here, off the API
 * server's event loop. Batches arrive already grouped: one transaction, one
 * fsync, many writes (group commit).
 */
import { existsSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { clearFailpoint, crash, failpoint, failpointsEnabled, hitSync, setFailpoint } from '../../failpoint/index.js';
import {
  SQLITE_FAILPOINTS as FP,
  awaitEarlyAckVerdict,
  walPosition,
  dropUnsyncedWal,
  type WalPosition,
} from './wal_failpoints.js';
import { applyPragmas, SCHEMA } from './schema.js';
import type { Expiry, OpResult, Request, Response, WriteOp, WriterConfig } from './protocol.js';

const cfg = workerData as WriterConfig;
const port = parentPort!;
const db = new Database(cfg.file);
applyPragmas(db, cfg.sync);
db.exec(SCHEMA);
if (cfg.maxPageCount !== undefined) db.pragma(`max_page_count = ${cfg.maxPageCount}`);

const q = {
  current: db.prepare('SELECT id, created FROM current WHERE name = ?'),
  insert: db.prepare('INSERT INTO kv (name, created, prev, deleted, value) VALUES (?, ?, ?, ?, ?)'),
  setCreated: db.prepare('UPDATE kv SET created = id WHERE id = ?'),
  upsertCurrent: db.prepare(
    'INSERT INTO current (name, id, created, expires) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET id = excluded.id, created = excluded.created, expires = excluded.expires',
  ),
  deleteCurrent: db.prepare('DELETE FROM current WHERE name = ?'),
  expiring: db.prepare(
    'SELECT c.name, c.id, c.created, kv.value FROM current c JOIN kv ON kv.id = c.id WHERE c.expires IS NOT NULL AND c.expires <= ? ORDER BY c.expires LIMIT 1000',
  ),
  compactScan: db.prepare('SELECT id, prev, deleted FROM kv WHERE id > ? AND id <= ? ORDER BY id LIMIT ?'),
  deleteRow: db.prepare('DELETE FROM kv WHERE id = ?'),
  setMeta: db.prepare('INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v'),
  getMeta: db.prepare('SELECT v FROM meta WHERE k = ?'),
};

let noSpace = (q.getMeta.get('alarm_nospace') as { v: number } | undefined)?.v === 1;

const pageCount = db.prepare('PRAGMA page_count').pluck();
const pageSize = db.pragma('page_size', { simple: true }) as number;
function dbSize(): number {
  return (pageCount.get() as number) * pageSize;
}

function setAlarm(on: boolean): void {
  if (on === noSpace) return;
  noSpace = on;
  try {
    q.setMeta.run('alarm_nospace', on ? 1 : 0);
  } catch {
    // A full disk may refuse even this write; the alarm still holds in memory.
  }
  post({ type: 'alarm', noSpace: on, dbSizeBytes: dbSize() });
}

function post(msg: Response): void {
  port.postMessage(msg);
}

if (cfg.raiseNoSpace === true) setAlarm(true);

function applyOp(op: WriteOp): OpResult {
  const cur = q.current.get(op.key) as { id: number; created: number } | undefined;
  if (op.op === 'create') {
    if (cur !== undefined) return { ok: false, code: 'KeyExists' };
    const rev = Number(q.insert.run(op.key, 0, 0, 0, op.value).lastInsertRowid);
    q.setCreated.run(rev);
    q.upsertCurrent.run(op.key, rev, rev, op.expires);
    return { ok: true, rev, created: rev };
  }
  if (cur === undefined) return { ok: false, code: 'KeyNotFound' };
  if (cur.id !== op.expectMod) return { ok: false, code: 'Conflict' };
  if (op.op === 'update') {
    const rev = Number(q.insert.run(op.key, cur.created, cur.id, 0, op.value).lastInsertRowid);
    q.upsertCurrent.run(op.key, rev, cur.created, op.expires);
    return { ok: true, rev, created: cur.created };
  }
  const rev = Number(q.insert.run(op.key, cur.created, cur.id, 1, Buffer.alloc(0)).lastInsertRowid);
  q.deleteCurrent.run(op.key);
  return { ok: true, rev, created: cur.created };
}

const runBatch = db.transaction((ops: WriteOp[]): OpResult[] =>
  ops.map((op) => (noSpace && op.op !== 'delete' ? { ok: false, code: 'NoSpace' } : applyOp(op))),
);

/** A test hook: once this file exists, the thread exits at its next batch, as a crashed writer would. */
const exitWhenFile = process.env.KSCALE_TEST_WRITER_EXIT_FILE;

/** The automatic checkpoint threshold in WAL pages: SQLite's default, or a test's (to checkpoint at every commit). */
const AUTOCHECKPOINT_PAGES = Number(process.env.KSCALE_TEST_WAL_AUTOCHECKPOINT ?? '1000');
db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);

/** Early acknowledgements published to the handshake so far (its sequence number). */
let earlyAcks = 0;
let batchesSinceSizeCheck = 0;
let nearQuota = false;
function handleBatch(id: number, ops: WriteOp[]): void {
  if (exitWhenFile !== undefined && existsSync(exitWhenFile)) process.exit(70);
  const t0 = performance.now();
  let results: OpResult[];
  let acked = false;
  try {
    const before = failpointsEnabled ? walPosition(cfg.file) : undefined;
    if (before !== undefined) {
      hitSync(FP.beforeCommit);
      // SQLite's automatic checkpoint runs inside the commit and makes the batch durable in the database file, so a
      // drop after it would cut nothing (or leave old WAL frames shadowing newer pages). With failpoints armed the
      // checkpoint waits until the failpoints after the commit have run, as a real fsync would come before it.
      db.pragma('wal_autocheckpoint = 0');
      try {
        results = runBatch(ops);
        acked = afterCommitFailpoints(id, ops, results, before);
      } finally {
        db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      }
      if (walPosition(cfg.file).size >= AUTOCHECKPOINT_PAGES * pageSize) db.pragma('wal_checkpoint(PASSIVE)');
    } else {
      results = runBatch(ops);
    }
  } catch (err) {
    const e = err as { code?: string; message?: string };
    // SQLITE_FULL: the disk (or max_page_count) is full; raise the alarm like etcd's NOSPACE.
    const full = e.code === 'SQLITE_FULL';
    if (full) setAlarm(true);
    const res: OpResult = { ok: false, code: full ? 'NoSpace' : 'Unavailable', message: e.message ?? String(err) };
    results = ops.map(() => res);
  }
  const commitMs = performance.now() - t0;
  // The quota is checked every 16 commits (and every commit once within 1% of it): cheap, and never far over.
  if (!noSpace && (++batchesSinceSizeCheck >= 16 || nearQuota)) {
    batchesSinceSizeCheck = 0;
    const size = dbSize();
    nearQuota = size > cfg.quotaBytes * 0.99;
    if (size > cfg.quotaBytes) setAlarm(true);
  }
  if (!acked) post({ type: 'batch', id, results, commitMs });
}

/**
 * The writer's failpoints between its commit and its answer. SQLite's commit
 * fsyncs inside the transaction, so "after commit, before fsync" is emulated:
 * drop-unsynced cuts the WAL back to where it stood before this batch (a real
 * truncate, with the database left open and never checkpointed) and kills the
 * process, which is what power loss before the fsync leaves on disk. The
 * ackBeforeFsync point (mutation runs only, counted over batches that
 * acknowledged a write) answers first, so the checker must find the
 * acknowledged writes missing: `on` then waits 1 s and runs the points below;
 * `handshake` waits for the test to say a client holds the answer and cuts the
 * power itself (or, told `pass`, lets the batch stand and fires on the next).
 * Returns whether it answered.
 */
function afterCommitFailpoints(id: number, ops: WriteOp[], results: OpResult[], before: WalPosition): boolean {
  let acked = false;
  const a0 = results.some((r) => r.ok) ? failpoint(FP.ackBeforeFsync) : undefined;
  if (a0 !== undefined) {
    post({ type: 'batch', id, results, commitMs: 0 });
    acked = true;
    if (a0.kind === 'verb' && a0.verb === 'handshake') {
      const acks = ops.flatMap((op, i): [string, number][] => {
        const r = results[i]!;
        return r.ok ? [[op.key, r.rev]] : [];
      });
      if (awaitEarlyAckVerdict(cfg.file, ++earlyAcks, acks) === 'drop') {
        dropUnsyncedWal(cfg.file, before);
        crash(FP.ackBeforeFsync);
      }
      return acked;
    }
    // Give the event loop time to send the answers before the power goes.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
  }
  const a = hitSync(FP.afterCommitBeforeFsync);
  if (a?.kind === 'drop-unsynced') {
    dropUnsyncedWal(cfg.file, before);
    crash(FP.afterCommitBeforeFsync);
  }
  hitSync(FP.afterFsyncBeforeAck);
  return acked;
}

function handleExpire(id: number, now: number): void {
  const expired: Expiry[] = [];
  db.transaction(() => {
    const rows = q.expiring.all(now) as { name: string; id: number; created: number; value: Buffer }[];
    for (const r of rows) {
      const rev = Number(q.insert.run(r.name, r.created, r.id, 1, Buffer.alloc(0)).lastInsertRowid);
      q.deleteCurrent.run(r.name);
      expired.push({ key: r.name, rev, prevRev: r.id, created: r.created, value: r.value });
    }
  })();
  post({ type: 'expire', id, expired });
}

/**
 * Compaction in small steps: each step is one short transaction over at most
 * `step` log rows, and other requests are served between steps, so no writer
 * waits behind a long compaction (kine's multi-second stalls). Only rows
 * written since the last compaction are visited: each such row supersedes
 * its predecessor, and a tombstone supersedes itself.
 */
function compactFrom(id: number, target: number, step: number, deleted: number, maxStepMs: number): void {
  const t0 = performance.now();
  const after = (q.getMeta.get('compact_progress') as { v: number } | undefined)?.v ?? 0;
  if (after >= target) {
    post({ type: 'done', id, deleted, maxStepMs });
    return;
  }
  let n = 0;
  let scanned = 0;
  db.transaction(() => {
    const rows = q.compactScan.all(after, target, step) as { id: number; prev: number; deleted: number }[];
    scanned = rows.length;
    for (const r of rows) {
      if (r.prev !== 0) n += q.deleteRow.run(r.prev).changes;
      if (r.deleted === 1) n += q.deleteRow.run(r.id).changes;
    }
    q.setMeta.run('compact_progress', scanned < step ? target : rows[rows.length - 1].id);
  })();
  const ms = performance.now() - t0;
  if (scanned === step) {
    setImmediate(() => compactFrom(id, target, step, deleted + n, Math.max(maxStepMs, ms)));
  } else {
    post({ type: 'done', id, deleted: deleted + n, maxStepMs: Math.max(maxStepMs, ms) });
  }
}

/**
 * VACUUM (etcd's defrag) rewrites the whole database through the WAL, so it
 * first checks that the data dir's filesystem has room for another copy:
 * started on a nearly full disk it would fail halfway and fill it. It never
 * clears the NOSPACE alarm; only `disarm` does, as `etcdctl alarm disarm`.
 */
function vacuum(id: number): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const fs = statfsSync(dirname(cfg.file));
  const free = fs.bavail * fs.bsize;
  const need = dbSize();
  if (free < need) {
    post({
      type: 'error',
      id,
      code: 'SQLITE_FULL',
      message: `defragment needs ${need} free bytes in ${dirname(cfg.file)}, only ${free} are free`,
    });
    return;
  }
  const t0 = performance.now();
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  post({ type: 'done', id, vacuumMs: performance.now() - t0 });
}

/** Clears NOSPACE unless the database is still over its quota (it would be raised again at once). */
function disarm(id: number): void {
  const size = dbSize();
  if (size > cfg.quotaBytes) {
    post({
      type: 'error',
      id,
      code: 'SQLITE_FULL',
      message: `database size ${size} still exceeds the quota ${cfg.quotaBytes}: compact and defragment first`,
    });
    return;
  }
  setAlarm(false);
  nearQuota = false;
  post({ type: 'done', id });
}

port.on('message', (req: Request) => {
  try {
    switch (req.type) {
      case 'batch':
        handleBatch(req.id, req.ops);
        break;
      case 'expire':
        handleExpire(req.id, req.now);
        break;
      case 'compact':
        q.setMeta.run('compact_rev', req.revision);
        compactFrom(req.id, req.revision, req.step, 0, 0);
        break;
      case 'vacuum':
        vacuum(req.id);
        break;
      case 'disarm':
        disarm(req.id);
        break;
      case 'failpoint':
        if (req.action === null) clearFailpoint(req.name);
        else setFailpoint(req.name, req.action);
        post({ type: 'done', id: req.id });
        break;
      case 'checkpoint':
        db.pragma('wal_checkpoint(TRUNCATE)');
        post({ type: 'done', id: req.id });
        break;
      case 'close':
        db.close();
        post({ type: 'done', id: req.id });
        port.close();
        break;
    }
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'SQLITE_FULL') setAlarm(true);
    post({
      type: 'error',
      id: req.id,
      message: e.message ?? String(err),
      ...(e.code === undefined ? {} : { code: e.code }),
    });
  }
});
