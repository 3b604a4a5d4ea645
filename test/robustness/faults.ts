/**
 * The faults a seed chooses from. The embedded store gets its failpoints
 * (each armed to fire after a seeded number of commits) and kill -9; etcd,
 * built without failpoints by Debian, gets kill -9 of the server only.
 */
import { SQLITE_FAILPOINTS as FP } from '../../src/storage/sqlite/wal_failpoints.js';

/** One seed's fault: failpoints armed at start, and/or a kill -9 at a moment into the run. */
export interface Fault {
  name: string;
  failpoints?: string;
  killAtMs?: number;
}

/** Picks the fault of a seed: a failpoint or a kill -9, always with a late kill -9 in case the point never fires. */
export function faultFor(rand: () => number, sqlite: boolean, durationMs: number): Fault {
  const killAtMs = Math.floor(durationMs * (0.2 + rand() * 0.6));
  const after = 150 + Math.floor(rand() * 250); // the boot commits 60–150 batches
  const points = [
    `${FP.beforeCommit}=${after}+panic`,
    `${FP.afterCommitBeforeFsync}=${after}+drop-unsynced`,
    `${FP.afterCommitBeforeFsync}=${after}+panic`,
    `${FP.afterFsyncBeforeAck}=${after}+panic`,
    `${FP.beforeCommit}=${after}+sleep(300)*5`,
    `cacher/reflector/registry/configmaps/=${Math.floor(after / 4)}+error*3`,
  ];
  const pick = Math.floor(rand() * (points.length + 1));
  if (!sqlite || pick === points.length) return { name: 'kill -9', killAtMs };
  return { name: points[pick]!, failpoints: points[pick]!, killAtMs: Math.floor(durationMs * 0.9) };
}
