/**
 * The disk's own fsync rate, measured in the same run and directory as the
 * stores: 4 KB written and fdatasync'ed in a loop. No store that fsyncs each
 * commit can commit faster than this; group commit is how it gets more writes
 * per fsync.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * fsyncs per second: the best of four windows over about `ms` in total (at
 * most 200k fsyncs), since the ceiling is what the disk can do, and a busy
 * neighbour only ever lowers a window.
 */
export function measureFsyncRate(dir: string, ms: number): number {
  const fd = openSync(join(dir, 'fsync-probe'), 'w');
  const block = Buffer.alloc(4096, 0x5a);
  let best = 0;
  try {
    for (let w = 0; w < 4; w++) {
      const t0 = performance.now();
      let n = 0;
      while (n < 50_000 && performance.now() - t0 < ms / 4) {
        // Rewrite blocks of a 1 MB region, like WAL frames followed by their sync.
        writeSync(fd, block, 0, block.length, (n % 256) * block.length);
        fdatasyncSync(fd);
        n++;
      }
      best = Math.max(best, (n * 1000) / (performance.now() - t0));
    }
    return best;
  } finally {
    closeSync(fd);
  }
}
