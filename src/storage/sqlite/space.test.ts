import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isStorageError } from '../errors.js';
import { openSqliteStorage } from './store.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'kscale-space-'));

test('over the quota, writes fail with NoSpace, reads go on, and compaction, defragment and an explicit disarm recover', async () => {
  const dir = tmp();
  const s = await openSqliteStorage({ dataDir: dir, quotaBytes: 2 * 1024 * 1024 });
  try {
    const value = Buffer.alloc(4096, 'q');
    let writes = 0;
    let failure: unknown = null;
    // Rewrite a few keys until the log passes the quota (bounded: 5,000 writes).
    for (let i = 0; i < 5_000 && failure === null; i++) {
      try {
        await s.guaranteedUpdate(
          `/registry/q/k${i % 10}`,
          () => ({ value: Buffer.concat([value, Buffer.from(String(i))]) }),
          { ignoreNotFound: true },
        );
        writes++;
      } catch (err) {
        failure = err;
      }
    }
    assert.ok(isStorageError(failure, 'NoSpace'), `expected NoSpace, got ${String(failure)}`);
    assert.ok(writes > 100);
    assert.deepEqual((await s.status()).alarms, ['NOSPACE']);
    assert.equal((await s.list('/registry/q/')).items.length, 10, 'reads go on under the alarm');
    await assert.rejects(s.create('/registry/q/new', Buffer.from('x')), (e) => isStorageError(e, 'NoSpace'));
    await s.delete('/registry/q/k9'); // deletes are allowed, as in etcd
    await assert.rejects(s.disarmAlarms(), /still exceeds the quota/, 'no disarm while over quota');
    await s.compact(await s.currentRevision());
    await s.defragment();
    assert.deepEqual((await s.status()).alarms, ['NOSPACE'], 'defragment alone leaves the alarm raised');
    assert.ok(((await s.status()).lastDefragmentMs ?? -1) >= 0, 'the VACUUM is timed');
    await assert.rejects(s.create('/registry/q/new', Buffer.from('x')), (e) => isStorageError(e, 'NoSpace'));
    await s.disarmAlarms();
    const st = await s.status();
    assert.deepEqual(st.alarms, []);
    assert.ok(st.dbSizeBytes < 2 * 1024 * 1024, `defragmented to ${st.dbSizeBytes} bytes`);
    await s.create('/registry/q/new', Buffer.from('x'));
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a full disk fails writes with NoSpace instead of crashing', async () => {
  const dir = tmp();
  const s = await openSqliteStorage({ dataDir: dir, maxPageCount: 64 });
  try {
    let failure: unknown = null;
    for (let i = 0; i < 500 && failure === null; i++) {
      try {
        await s.create(`/registry/full/k${i}`, Buffer.alloc(2048, 'f'));
      } catch (err) {
        failure = err;
      }
    }
    assert.ok(isStorageError(failure, 'NoSpace'), `expected NoSpace, got ${String(failure)}`);
    assert.ok((await s.list('/registry/full/')).items.length > 0, 'committed writes are still readable');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compaction runs in small steps and the revision survives a restart', async () => {
  const dir = tmp();
  let s = await openSqliteStorage({ dataDir: dir, compactionStep: 200 });
  try {
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          s.guaranteedUpdate(`/registry/c/k${i}`, () => ({ value: Buffer.from(`r${round}`) }), {
            ignoreNotFound: true,
          }),
        ),
      );
    }
    const rev = await s.currentRevision();
    assert.equal(rev, 2000);
    await s.compact(rev);
    assert.ok(s.maxCompactionStepMs > 0 && s.maxCompactionStepMs < 1000);
    const { items } = await s.list('/registry/c/');
    assert.equal(items.length, 100);
    assert.ok(items.every((kv) => kv.value.toString() === 'r19'));
    await s.close();
    s = await openSqliteStorage({ dataDir: dir });
    assert.equal(await s.currentRevision(), rev, 'the revision is kept across a restart');
    assert.equal((await s.status()).compactedRevision, rev, 'the compacted revision is kept across a restart');
    const next = await s.create('/registry/c/new', Buffer.from('n'));
    assert.equal(next.modRevision, rev + 1, 'revisions are never reused, also after compaction');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
