import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disarmFailpoints, setFailpoint } from '../../failpoint/index.js';
import { isStorageError } from '../errors.js';
import { failureOf, openCacher, pod, turn } from './test_helpers.js';

const P = '/registry/pods/';
const OTHER = '/registry/nodes/';

test('a consistent read never returns data older than a write acknowledged before it started', async () => {
  const f = await openCacher(P);
  try {
    const c = f.cacher;
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 25; i++) {
          const key = `${P}default/w${w}`;
          const written = await f.sqlite.guaranteedUpdate(key, () => ({ value: pod(`w${w}`, { phase: `v${i}` }) }), {
            ignoreNotFound: true,
          });
          // Alternately the storage-shaped get and the object get the API server's GET uses.
          const got = i % 2 === 0 ? (await c.get(key)).modRevision : (await c.getObject(key)).revision;
          assert.ok(got >= written.modRevision, `get saw ${got} after a write at ${written.modRevision}`);
          // A write to another resource moves storage's revision; the cache of pods must still reach it (progress).
          const elsewhere = await f.sqlite.create(`${OTHER}n-${w}-${i}`, pod('n'));
          const listed = await c.list(P);
          assert.ok(
            listed.revision >= elsewhere.modRevision,
            `list at ${listed.revision} after a write at ${elsewhere.modRevision}`,
          );
          const mine = listed.items.find((kv) => kv.key === key)!;
          assert.ok(mine.modRevision >= written.modRevision);
        }
      }),
    );
    const m = c.metrics();
    // Lists wait for the cache; a get reads storage instead when the cache trails the last acknowledged write.
    assert.equal(m.listTotal, 200, 'every consistent list was served from the cache');
    assert.equal(m.getTotal + m.storageReads, 200, 'every get was served, from the cache or from storage');
    assert.ok(m.progressRequests > 0, 'it asked storage for progress to catch up');
  } finally {
    await f.close();
  }
});

test('a consistent GET does not wait for a cache that trails storage: it reads storage at once', async () => {
  const f = await openCacher(P);
  try {
    // The reflector holds each event 2 s: the cache trails the acknowledged write for that long.
    setFailpoint(`cacher/reflector${P}`, 'sleep(2000)');
    const kv = await f.sqlite.create(`${P}default/slow`, pod('slow'));
    const t0 = performance.now();
    const got = await f.cacher.get(kv.key);
    const ms = performance.now() - t0;
    assert.equal(got.modRevision, kv.modRevision, 'the GET saw the acknowledged write');
    assert.ok(ms < 1_000, `the GET read storage instead of waiting for the cache (${ms.toFixed(0)} ms)`);
    assert.equal(f.cacher.metrics().storageReads, 1);
  } finally {
    disarmFailpoints();
    await f.close();
  }
});

test('without reliable progress, consistent reads go to storage', async () => {
  const f = await openCacher(P, { consistentReadsFromCache: false });
  try {
    const kv = await f.sqlite.create(`${P}default/a`, pod('a'));
    assert.equal((await f.cacher.get(kv.key)).modRevision, kv.modRevision);
    assert.equal((await f.cacher.list(P)).items.length, 1);
    assert.equal(f.cacher.metrics().storageReads, 2);
    await f.cacher.list(P, { minRevision: 0 });
    assert.equal(f.cacher.metrics().storageReads, 2, 'resourceVersion "0" is still served from the cache');
  } finally {
    await f.close();
  }
});

test('a resourceVersion ahead of the cache waits 3 s, then fails with TooLargeResourceVersion', async () => {
  const f = await openCacher(P);
  try {
    const ahead = (await f.sqlite.currentRevision()) + 100;
    let settled = false;
    const list = f.cacher.list(P, { minRevision: ahead }).finally(() => (settled = true));
    const get = f.cacher.get(`${P}default/x`, { revision: ahead });
    const watch = f.cacher.watchObjects({ fromRevision: ahead });
    const watchErr = failureOf(watch);
    for (let i = 0; i < 30; i++) await turn();
    f.clock.step(2_900);
    await turn();
    assert.equal(settled, false, 'still waiting before 3 s');
    f.clock.step(100);
    for (const p of [list, get]) {
      const err = await p.then(
        () => new Error('succeeded'),
        (e: unknown) => e,
      );
      assert.ok(isStorageError(err, 'TooLargeResourceVersion'), `got ${String(err)}`);
    }
    assert.ok(isStorageError(await watchErr, 'TooLargeResourceVersion'));
    // A revision the cache reaches during the wait is served.
    const next = (await f.sqlite.currentRevision()) + 1;
    const pending = f.cacher.list(P, { minRevision: next });
    await f.sqlite.create(`${P}default/late`, pod('late'));
    const page = await pending;
    assert.ok(page.revision >= next);
    assert.equal(page.items.length, 1);
  } finally {
    await f.close();
  }
});
