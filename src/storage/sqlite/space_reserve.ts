/**
 * A space reserve in the data dir, so the embedded store can start on a disk
 * that filled up while it ran: SQLite needs a little room to open (the data
 * dir's lock, the WAL index, a checkpoint), and a full disk would otherwise
 * keep the server down until an operator frees space by hand. The store keeps
 * `space.reserve` (a few MiB of real blocks) while there is room; a start-up
 * that fails for want of space deletes it and opens again, with the NOSPACE
 * alarm raised: reads and deletes work, writes get etcd's NOSPACE Status.
 * The reserve comes back at the first start with room for it.
 */
import { closeSync, existsSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The reserve file inside a data dir. */
export const reserveFile = (dataDir: string): string => join(dataDir, 'space.reserve');

/** How much the reserve holds: room for the lock, the WAL index and a few deletes. */
export const RESERVE_BYTES = 2 * 1024 * 1024;

/** Creates the reserve when it is missing and there is room; a disk without room gets none (no partial file). */
export function ensureReserve(dataDir: string, bytes = RESERVE_BYTES): boolean {
  const file = reserveFile(dataDir);
  if (existsSync(file)) return true;
  const chunk = Buffer.alloc(64 * 1024);
  const fd = openSync(file, 'w', 0o600);
  try {
    // Real blocks, not a sparse file: they are what a full disk gives back (allocated at write, no fsync needed).
    for (let n = 0; n < bytes; n += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - n));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    rmSync(file, { force: true });
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Gives the reserve's space back to the filesystem; false when there was none. */
export function releaseReserve(dataDir: string): boolean {
  const file = reserveFile(dataDir);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

/** Whether `err` (SQLite's, the filesystem's, or a StorageError wrapping either) says the disk is full. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err as { code?: string; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 'SQLITE_FULL' || e.code === 'ENOSPC' || e.code === 'NoSpace') return true;
    if (/database or disk is full|no space left on device/i.test(e.message ?? '')) return true;
  }
  return false;
}
