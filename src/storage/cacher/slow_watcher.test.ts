import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStorageError } from '../errors.js';
import type { ObjectEvent } from '../objects.js';
import { failureOf, openCacher, pod, take, turn } from './test_helpers.js';

const P = '/registry/pods/';

test('a watcher that stays full past its budget is closed with TooSlow while 100 others get every event in order', async () => {
  const f = await openCacher(P, { watcherCapacity: 10, slowWatcherBudgetMs: 1_000 });
  try {
    const slow = f.cacher.watchObjects({});
    const fast = Array.from({ length: 100 }, () => f.cacher.watchObjects({}));
    const total = 60;
    const readers = fast.map((w) => take(w, total, 20_000));
    await turn();
    const revs: number[] = [];
    // 15 events: past the slow watcher's capacity (10) but under its hard limit, so only time closes it.
    for (let i = 0; i < 15; i++) revs.push((await f.sqlite.create(`${P}default/p${i}`, pod(`p${i}`))).modRevision);
    await f.cacher.list(P); // the cache has dispatched all 15
    assert.equal(f.cacher.metrics().terminatedWatchers, 0, 'within its budget the slow watcher is kept');
    f.clock.step(1_000);
    assert.equal(f.cacher.metrics().terminatedWatchers, 1, 'past the budget it is closed');
    const err = await failureOf(slow);
    assert.ok(
      isStorageError(err, 'TooSlow'),
      `the slow watcher fails with TooSlow instead of seeing a gap, got ${String(err)}`,
    );
    for (let i = 15; i < total; i++) revs.push((await f.sqlite.create(`${P}default/p${i}`, pod(`p${i}`))).modRevision);
    const results = await Promise.all(readers);
    for (const got of results) {
      assert.deepEqual(
        got.map((e: ObjectEvent) => e.revision),
        revs,
        'every event, in order, once',
      );
    }
    assert.equal(f.cacher.metrics().watchers, 100);
  } finally {
    await f.close();
  }
});

test('a watcher past its hard limit is closed at once, without waiting for the budget', async () => {
  const f = await openCacher(P, { watcherCapacity: 2, slowWatcherBudgetMs: 60_000 });
  try {
    const slow = f.cacher.watchObjects({});
    await turn();
    for (let i = 0; i < 25; i++) await f.sqlite.create(`${P}default/p${i}`, pod(`p${i}`));
    await f.cacher.list(P);
    assert.equal(f.cacher.metrics().terminatedWatchers, 1);
    assert.ok(isStorageError(await failureOf(slow), 'TooSlow'));
  } finally {
    await f.close();
  }
});
