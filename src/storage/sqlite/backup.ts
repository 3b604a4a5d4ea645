/**
 * Online backup and restore of the embedded store, the counterpart of
 * `etcdctl snapshot save` and `etcdutl snapshot restore`. A backup opens the
 * database read-only beside the running server and copies it with SQLite's
 * online backup API in one step: one read transaction, so the copy is the
 * store at exactly one revision, and the server's writer is never blocked
 * (WAL readers do not block writers).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { isStorageError, unavailable } from '../errors.js';
import { dbFile } from './store.js';

/** What a backup or restore produced. */
export interface SnapshotInfo {
  /** The store's revision in the snapshot. */
  revision: number;
  /** Live keys in it. */
  keys: number;
  bytes: number;
}

/** Copies the data dir's database to `out` (atomically: written beside it, fsynced, renamed). */
export async function backupSqlite(dataDir: string, out: string): Promise<SnapshotInfo> {
  const file = dbFile(dataDir);
  if (!existsSync(file)) throw unavailable(`no database at ${file}`);
  const tmp = `${out}.part`;
  rmSync(tmp, { force: true });
  const src = new Database(file, { readonly: true, fileMustExist: true });
  try {
    src.pragma('busy_timeout = 5000');
    // Every page in the step after the first (empty) one: the whole copy inside one read transaction.
    await src.backup(tmp, { progress: () => 0x7fffffff });
  } finally {
    src.close();
  }
  // A snapshot is one self-contained file: take it out of WAL mode (this writes only the copy).
  const copy = new Database(tmp);
  copy.pragma('journal_mode = DELETE');
  copy.close();
  const info = inspectSnapshot(tmp);
  syncFile(tmp);
  renameSync(tmp, out);
  syncFile(dirname(out));
  return info;
}

/**
 * Writes a backup into a data dir that holds no database yet (as etcdutl
 * restores only into a new dir), after checking the backup's integrity.
 */
export function restoreSqlite(from: string, dataDir: string): SnapshotInfo {
  const info = inspectSnapshot(from);
  const file = dbFile(dataDir);
  if (existsSync(file)) throw unavailable(`${file} exists: restore into an empty data dir`);
  mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.restore`;
  const src = new Database(from, { readonly: true, fileMustExist: true });
  try {
    // VACUUM INTO writes a fresh, self-contained copy (no WAL of the backup's is needed).
    src.prepare('VACUUM INTO ?').run(tmp);
  } finally {
    src.close();
  }
  syncFile(tmp);
  renameSync(tmp, file);
  syncFile(dataDir);
  return info;
}

/** Checks a snapshot file (integrity, kscale's schema) and reads its revision. */
export function inspectSnapshot(file: string): SnapshotInfo {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw unavailable(`cannot open snapshot ${file}: ${(err as Error).message}`, err);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw unavailable(`snapshot ${file} is corrupt: ${String(check)}`);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    if (!tables.includes('kv') || !tables.includes('current'))
      throw unavailable(`${file} is not a kscale storage snapshot`);
    const revision = (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'kv'").pluck().get() as number) ?? 0;
    const keys = db.prepare('SELECT count(*) FROM current').pluck().get() as number;
    return { revision, keys, bytes: statSync(file).size };
  } catch (err) {
    throw isStorageError(err) ? err : unavailable(`cannot read snapshot ${file}: ${(err as Error).message}`, err);
  } finally {
    db.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
