/**
 * The disk's own fsync rate, measured in the same run and directory as the
 * stores: 4 KB written and fdatasync'ed in a loop. No store that fsyncs each
 * commit can commit faster than this; group commit is how it gets more writes
 * per fsync.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** fsyncs per second over about `ms` (at most 200k). */
export function measureFsyncRate(dir: string, ms: number): number {
  const fd = openSync(join(dir, 'fsync-probe'), 'w');
  const block = Buffer.alloc(4096, 0x5a);
  try {
    const t0 = performance.now();
    let n = 0;
    while (n < 200_000 && performance.now() - t0 < ms) {
      // Rewrite the same block, like a WAL frame followed by its sync.
      writeSync(fd, block, 0, block.length, (n % 256) * block.length);
      fdatasyncSync(fd);
      n++;
    }
    return (n * 1000) / (performance.now() - t0);
  } finally {
    closeSync(fd);
  }
}
