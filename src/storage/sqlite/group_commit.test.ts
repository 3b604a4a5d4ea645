import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openSqliteStorage, type SqliteStorage } from './store.js';
import { BACKLOG_WRITES, MAX_BATCH_BYTES, MAX_BATCH_WRITES } from './writer.js';

async function withStore(fn: (s: SqliteStorage) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-groupcommit-'));
  const s = await openSqliteStorage({ dataDir: dir });
  try {
    await fn(s);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a burst of up to BACKLOG_WRITES writes is committed in batches of at most MAX_BATCH_WRITES, in order', async () => {
  await withStore(async (s) => {
    const before = { ...s.writerStats };
    const n = BACKLOG_WRITES;
    const written = await Promise.all(
      Array.from({ length: n }, (_, i) => s.create(`/registry/pods/ns/p${i}`, Buffer.from(`{"i":${i}}`))),
    );
    const after = s.writerStats;
    assert.equal(after.writes - before.writes, n);
    assert.equal(after.maxBatchWrites, MAX_BATCH_WRITES, 'the burst filled batches up to the cap and no further');
    assert.ok(
      after.commits - before.commits >= Math.ceil(n / MAX_BATCH_WRITES),
      `${after.commits - before.commits} commits`,
    );
    for (let i = 1; i < n; i++)
      assert.ok(written[i]!.modRevision > written[i - 1]!.modRevision, 'revisions follow submission order');
    const read = await s.get(`/registry/pods/ns/p${n - 1}`);
    assert.equal(read.value.toString(), `{"i":${n - 1}}`);
  });
});

test('writes submitted while a capped batch commits are all acknowledged and readable', async () => {
  await withStore(async (s) => {
    const first = Array.from({ length: 2 * MAX_BATCH_WRITES }, (_, i) =>
      s.create(`/registry/a/${i}`, Buffer.from('1')),
    );
    // A second wave while the first is in flight: queued behind the rest of the first burst.
    await new Promise((r) => setImmediate(r));
    const second = Array.from({ length: 10 }, (_, i) => s.create(`/registry/b/${i}`, Buffer.from('2')));
    const all = await Promise.all([...first, ...second]);
    assert.equal(new Set(all.map((kv) => kv.modRevision)).size, all.length, 'every write has its own revision');
    const listed = await s.list('/registry/');
    assert.equal(listed.items.length, all.length);
  });
});

test('a backlog past BACKLOG_WRITES is committed in one batch, in submission order', async () => {
  await withStore(async (s) => {
    const n = 3 * BACKLOG_WRITES + 5;
    const written = await Promise.all(
      Array.from({ length: n }, (_, i) => s.create(`/registry/pods/ns/p${i}`, Buffer.from(`{"i":${i}}`))),
    );
    assert.equal(s.writerStats.maxBatchWrites, n, 'the whole backlog went to the writer at once');
    for (let i = 1; i < n; i++)
      assert.ok(written[i]!.modRevision > written[i - 1]!.modRevision, 'revisions follow submission order');
  });
});

test("a backlog's batch stops before MAX_BATCH_BYTES of values; every write still commits", async () => {
  await withStore(async (s) => {
    const size = 300 * 1024;
    const n = BACKLOG_WRITES + 6;
    const value = Buffer.alloc(size, 'x');
    const written = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`/registry/cm/ns/c${i}`, value)));
    assert.equal(s.writerStats.maxBatchWrites, Math.floor(MAX_BATCH_BYTES / size));
    assert.equal(new Set(written.map((kv) => kv.modRevision)).size, n);
    assert.equal((await s.get(`/registry/cm/ns/c${n - 1}`)).value.length, size);
  });
});
