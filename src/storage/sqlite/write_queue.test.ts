import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isStorageError } from '../errors.js';
import { openSqliteStorage } from './store.js';

test('past the bounded write queue, writes fail at once with Busy and the queued ones still commit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-queue-'));
  const s = await openSqliteStorage({ dataDir: dir, maxQueuedWrites: 8 });
  try {
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => s.create(`/registry/q/k${i}`, Buffer.from(String(i)))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const busy = results.filter((r) => r.status === 'rejected' && isStorageError(r.reason, 'Busy')).length;
    assert.equal(ok + busy, 50, 'every write either committed or was refused as Busy');
    assert.ok(ok >= 8 && busy > 0, `${ok} committed, ${busy} refused`);
    assert.equal((await s.list('/registry/q/')).items.length, ok, 'every acknowledged write is stored');
    assert.deepEqual((await s.status()).writeQueue, { queued: 0, rejected: busy });
    await s.create('/registry/q/after', Buffer.from('x'));
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
