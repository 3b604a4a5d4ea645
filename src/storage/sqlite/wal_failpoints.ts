/**
 * The storage writer's failpoint names, and the file operations behind
 * drop-unsynced: where the WAL stood before a commit, and cutting it back
 * there, as power loss before that commit's fsync would.
 */
import { closeSync, fstatSync, openSync, readSync, truncateSync } from 'node:fs';

/** The writer's points, in the order a batch meets them. */
export const SQLITE_FAILPOINTS = {
  beforeCommit: 'sqlite/beforeCommit',
  /** Mutation runs only: answer the batch before the (emulated) fsync. */
  ackBeforeFsync: 'sqlite/ackBeforeFsync',
  afterCommitBeforeFsync: 'sqlite/afterCommitBeforeFsync',
  afterFsyncBeforeAck: 'sqlite/afterFsyncBeforeAck',
} as const;

/** The WAL's size and its header's checkpoint sequence and salts (which change when SQLite restarts the WAL). */
export interface WalPosition {
  size: number;
  generation: string;
}

/** Reads where the WAL of `dbFile` stands; a missing WAL is size 0. */
export function walPosition(dbFile: string): WalPosition {
  let fd: number;
  try {
    fd = openSync(`${dbFile}-wal`, 'r');
  } catch {
    return { size: 0, generation: '' };
  }
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(12);
    const n = size >= 24 ? readSync(fd, header, 0, 12, 12) : 0;
    return { size, generation: header.subarray(0, n).toString('hex') };
  } finally {
    closeSync(fd);
  }
}

/**
 * Truncates the WAL back to `before`: to its old size when this commit appended
 * frames, or to nothing when SQLite restarted the WAL for it (everything older
 * had been checkpointed into the database file, so nothing fsync'd is lost).
 */
export function dropUnsyncedWal(dbFile: string, before: WalPosition): void {
  const now = walPosition(dbFile);
  const cut = now.generation === before.generation ? before.size : 0;
  truncateSync(`${dbFile}-wal`, cut);
}
