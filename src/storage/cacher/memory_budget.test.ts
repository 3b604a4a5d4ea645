import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStorageError } from '../errors.js';
import { WatchCacheMemoryBudget } from './memory_budget.js';
import { failureOf, openCacher, pod } from './test_helpers.js';

const P = '/registry/pods/';

/** Updates one pod `n` times, so the window's history (the superseded versions) grows while the state does not. */
async function churn(f: Awaited<ReturnType<typeof openCacher>>, n: number): Promise<number[]> {
  const revs: number[] = [];
  revs.push((await f.sqlite.create(`${P}default/a`, pod('a', { phase: 'v0' }))).modRevision);
  for (let i = 1; i <= n; i++)
    revs.push(
      (await f.sqlite.guaranteedUpdate(`${P}default/a`, () => ({ value: pod('a', { phase: `v${i}` }) }))).modRevision,
    );
  return revs;
}

test('over --watch-cache-max-bytes the oldest history is shed first: old revisions are Expired, the state still lists', async () => {
  const budget = new WatchCacheMemoryBudget(4_000);
  const f = await openCacher(P, { memoryBudget: budget });
  try {
    const revs = await churn(f, 40);
    const list = await f.cacher.list(P); // consistent: the cache has applied every event
    assert.equal(list.items.length, 1, 'the state itself fits, so lists are served');
    const m = f.cacher.metrics();
    assert.ok(m.shedEvents > 0, `events were shed (${m.shedEvents})`);
    assert.ok(m.bytes > 0 && m.bytes <= budget.maxBytes, `held ${m.bytes} bytes, at most the watermark`);
    assert.equal(budget.heldBytes, m.bytes, 'the budget counts what its one cache holds');
    const oldest = f.cacher.watchCache.window.oldestRevision;
    assert.ok(oldest > revs[0]!, `the window no longer starts at the first write (${oldest})`);
    assert.ok(oldest < revs.at(-1)!, 'but it still holds the newest events');
    const err = await failureOf(f.cacher.watchObjects({ fromRevision: revs[0]! }));
    assert.ok(isStorageError(err, 'Expired'), `a watch from the shed history is Expired, got ${String(err)}`);
    assert.equal(m.refusedLists, 0);
  } finally {
    await f.close();
  }
  assert.equal(budget.heldBytes, 0, 'a stopped cache gives its bytes back');
});

test("when the objects alone are over the watermark, clients' lists from the cache are refused with Busy (429), the server's own are not", async () => {
  const budget = new WatchCacheMemoryBudget(1_500);
  const f = await openCacher(P, { memoryBudget: budget });
  try {
    for (let i = 0; i < 8; i++) await f.sqlite.create(`${P}default/p${i}`, pod(`p${i}`));
    const err = await f.cacher.listObjects({ refusable: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isStorageError(err, 'Busy'), `over the watermark a list is Busy, got ${String(err)}`);
    assert.match((err as Error).message, /--watch-cache-max-bytes 1500/);
    const m = f.cacher.metrics();
    assert.equal(m.refusedLists, 1);
    assert.equal(budget.refusedLists, 1);
    assert.equal(f.cacher.watchCache.window.length, 0, 'every event was shed before refusing');
    assert.equal((await f.cacher.listObjects()).items.length, 8, "the server's own list is still served");
    assert.equal((await f.cacher.list(P)).items.length, 8, 'and so is the Storage-contract list');
    // Deleting objects brings it back under: lists are served again.
    for (let i = 0; i < 8; i++) await f.sqlite.delete(`${P}default/p${i}`);
    await f.sqlite.create(`${P}default/last`, pod('last'));
    const list = await f.cacher.listObjects({ refusable: true });
    assert.deepEqual(
      list.items.map((o) => o.key),
      [`${P}default/last`],
    );
  } finally {
    await f.close();
  }
});

test('without a budget nothing is counted or shed', async () => {
  const f = await openCacher(P);
  try {
    await churn(f, 40);
    await f.cacher.list(P);
    const m = f.cacher.metrics();
    assert.equal(m.bytes, 0);
    assert.equal(m.shedEvents, 0);
    assert.equal(f.cacher.watchCache.window.length, 41, 'the whole history is kept');
  } finally {
    await f.close();
  }
});
