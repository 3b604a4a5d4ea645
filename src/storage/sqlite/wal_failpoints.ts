/**
 * The storage writer's failpoint names, and the file operations behind
 * drop-unsynced: where the WAL stood before a commit, and cutting it back
 * there, as power loss before that commit's fsync would.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';

/** The writer's points, in the order a batch meets them. */
export const SQLITE_FAILPOINTS = {
  beforeCommit: 'sqlite/beforeCommit',
  /** Mutation runs only: answer the batch before the (emulated) fsync (`on`: wait 1 s; `handshake`: wait for the test). */
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

/** The early acknowledgement's handshake files beside the database (mutation runs only). */
export const earlyAckFiles = (dbFile: string): { acks: string; verdict: string } => ({
  acks: `${dbFile}.early-ack`,
  verdict: `${dbFile}.early-ack-verdict`,
});

/** What the handshake's other side decided: cut the power now, or let this batch stand and try the next. */
export type EarlyAckVerdict = 'drop' | 'pass';

/**
 * The writer's side of ackBeforeFsync=handshake: publishes the keys and revisions
 * it just acknowledged early (`<db>.early-ack`, `{seq, acks}`), then blocks
 * until the test writes `<seq> drop` or `<seq> pass` to `<db>.early-ack-verdict`,
 * so the power is cut only once a client holds the answer. No verdict within
 * `timeoutMs` is a pass: an early answer nobody saw proves nothing.
 */
export function awaitEarlyAckVerdict(
  dbFile: string,
  seq: number,
  acks: [string, number][],
  timeoutMs = 60_000,
): EarlyAckVerdict {
  const f = earlyAckFiles(dbFile);
  writeFileSync(`${f.acks}.tmp`, JSON.stringify({ seq, acks }));
  renameSync(`${f.acks}.tmp`, f.acks);
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + timeoutMs;
  let verdict: EarlyAckVerdict = 'pass';
  while (performance.now() < deadline) {
    const text = existsSync(f.verdict) ? readFileSync(f.verdict, 'utf8').trim().split(' ') : [];
    if (text[0] === String(seq) && (text[1] === 'drop' || text[1] === 'pass')) {
      verdict = text[1];
      break;
    }
    Atomics.wait(wait, 0, 0, 5);
  }
  rmSync(f.acks, { force: true });
  rmSync(f.verdict, { force: true });
  return verdict;
}
