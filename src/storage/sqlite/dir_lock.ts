/**
 * An exclusive lock on a data dir, so a second server on the same embedded
 * store fails at start-up instead of splitting its watches (etcd's own data
 * dir takes a file lock the same way). The lock is SQLite's: an exclusive
 * transaction held open on `<dir>/kscale.lock`, which SQLite takes with a
 * POSIX record lock. The kernel drops that lock when the process dies, even
 * by kill -9, so a stale lock never blocks a restart, and two starters can
 * never both win.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { unavailable } from '../errors.js';

/** The lock file inside a data dir. */
export const lockFile = (dataDir: string): string => join(dataDir, 'kscale.lock');

/** A held data-dir lock; release() lets the next opener in. */
export interface DataDirLock {
  release(): void;
}

/** Takes the data dir's lock at once, or throws Unavailable naming the dir when another opener holds it. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = lockFile(dataDir);
  // timeout 0: fail at once rather than wait out better-sqlite3's 5 s busy timeout.
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
      throw unavailable(`data dir ${dataDir} is in use by another kscale server (lock held on ${file})`, err);
    throw unavailable(`cannot lock data dir ${dataDir}: ${(err as Error).message}`, err);
  }
  let held = true;
  return {
    release(): void {
      if (!held) return;
      held = false;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
