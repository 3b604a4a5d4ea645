import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openSqliteStorage, type SqliteStorage } from './store.js';
import { BACKLOG_WRITES, MAX_BATCH_BYTES, MAX_BATCH_WRITES, MID_TURN_FLUSH_MS } from './writer.js';

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

const hold = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test("a write that comes in while the event loop is busy takes the writer's answer to an earlier one at once", async () => {
  await withStore(async (s) => {
    await s.create('/registry/warm', Buffer.from('0'));
    let answered = false;
    const first = s.create('/registry/a', Buffer.from('1')).then(() => (answered = true));
    // The first write's batch goes to the writer thread; then the event loop is held past its commit.
    await new Promise((r) => setImmediate(r));
    hold(300);
    const second = s.create('/registry/b', Buffer.from('2'));
    // Microtasks only: no turn of the event loop delivers the answer.
    for (let i = 0; i < 50 && !answered; i++) await Promise.resolve();
    assert.ok(answered, 'the first write was answered without waiting for the next turn');
    await Promise.all([first, second]);
    assert.equal((await s.get('/registry/b')).value.toString(), '2');
  });
});

test('in a long turn of the event loop, writes go to an idle writer and are answered within the turn', async () => {
  await withStore(async (s) => {
    await s.create('/registry/warm', Buffer.from('0'));
    const answered: string[] = [];
    const write = (k: string): Promise<unknown> =>
      s.create(`/registry/${k}`, Buffer.from(k)).then(() => answered.push(k));
    const micro = async (): Promise<void> => {
      for (let i = 0; i < 50; i++) await Promise.resolve();
    };
    // One turn throughout: only microtasks run between the writes.
    const a = write('a');
    hold(MID_TURN_FLUSH_MS + 20);
    const b = write('b'); // a waited long enough: a and b go to the writer now
    await micro();
    hold(300); // the commit is done meanwhile
    const c = write('c'); // takes the answer for a and b, and sends c
    await micro();
    assert.deepEqual(answered, ['a', 'b'], 'a and b answered in the turn they came in');
    await Promise.all([a, b, c]);
    assert.deepEqual(answered, ['a', 'b', 'c']);
  });
});

test('in a short turn a lone write still waits for the end of the turn, so writes of one turn share a commit', async () => {
  await withStore(async (s) => {
    await s.create('/registry/warm', Buffer.from('0'));
    const before = s.writerStats.commits;
    const all = Array.from({ length: 10 }, (_, i) => s.create(`/registry/k${i}`, Buffer.from('1')));
    await Promise.all(all);
    assert.equal(s.writerStats.commits - before, 1);
  });
});
