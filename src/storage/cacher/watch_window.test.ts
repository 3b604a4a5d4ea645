import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { isStorageError } from '../errors.js';
import { CachedObject, jsonCodec } from './cached_object.js';
import { EventWindow } from './event_window.js';
import { failureOf, openCacher, pod, take } from './test_helpers.js';
import { WatchCacheEvent } from './watch_cache_event.js';

const P = '/registry/pods/';

test('watch resumes from every revision inside the window and at its edge; just outside is Expired', async () => {
  // A fixed window of 4 events, so its edge is easy to reach.
  const f = await openCacher(P, { windowSizing: { lowerBoundCapacity: 4, upperBoundCapacity: 4 } });
  try {
    const revs: number[] = [];
    for (let i = 0; i < 10; i++) revs.push((await f.sqlite.create(`${P}default/p${i}`, pod(`p${i}`))).modRevision);
    await f.cacher.list(P); // a consistent read: the cache has applied all 10
    const oldest = f.cacher.watchCache.window.oldestRevision;
    assert.equal(oldest, revs[5], 'the window holds the last 4 events, so resuming is possible from the 6th');
    const watchers = [];
    for (let i = 5; i <= 9; i++) {
      const w = f.cacher.watchObjects({ fromRevision: revs[i] });
      const want = revs.slice(i + 1);
      const got = want.length === 0 ? [] : await take(w, want.length);
      assert.deepEqual(
        got.map((e) => [e.type, e.revision]),
        want.map((r) => ['ADDED', r]),
        `resume from ${revs[i]}`,
      );
      watchers.push(w);
    }
    // Live events follow the replay without a gap, for every one of them.
    const next = await f.sqlite.create(`${P}default/live`, pod('live'));
    for (const w of watchers) {
      const [live] = await take(w, 1);
      assert.equal(live.revision, next.modRevision);
      w.stop();
    }
    const edge = f.cacher.watchCache.window.oldestRevision;
    const err = await failureOf(f.cacher.watchObjects({ fromRevision: edge - 1 }));
    assert.ok(isStorageError(err, 'Expired'), `just outside the window is Expired, got ${String(err)}`);
    // The Storage contract instead serves it from storage, which still has that history.
    const sw = f.cacher.watch(P, { fromRevision: edge - 1 });
    const [first] = await take(sw, 1);
    assert.equal(first.revision, edge);
    sw.stop();
  } finally {
    await f.close();
  }
});

test('a list at an older revision inside the window undoes the newer events', async () => {
  const f = await openCacher(P);
  try {
    const a = await f.sqlite.create(`${P}default/a`, pod('a', { phase: 'v1' }));
    await f.sqlite.create(`${P}default/b`, pod('b'));
    const at = (await f.cacher.list(P)).revision;
    await f.sqlite.guaranteedUpdate(`${P}default/a`, () => ({ value: pod('a', { phase: 'v2' }) }));
    await f.sqlite.delete(`${P}default/b`);
    await f.sqlite.create(`${P}default/c`, pod('c'));
    const old = await f.cacher.listObjects({ revision: at });
    assert.equal(old.revision, at);
    assert.deepEqual(
      old.items.map((o) => o.key),
      [`${P}default/a`, `${P}default/b`],
    );
    assert.equal(old.items[0].revision, a.modRevision);
    assert.match(old.items[0].bytes().toString(), /"phase":"v1"/);
    const now = await f.cacher.listObjects({});
    assert.deepEqual(
      now.items.map((o) => o.key),
      [`${P}default/a`, `${P}default/c`],
    );
    assert.equal(f.cacher.metrics().storageReads, 0, 'both served from memory');
  } finally {
    await f.close();
  }
});

test('the window grows while its oldest event is younger than 75 s, and shrinks when events age', () => {
  const clock = new FakeClock();
  const w = new EventWindow({ eventFreshDurationMs: 75_000, lowerBoundCapacity: 100, upperBoundCapacity: 1_600 }, 0);
  const ev = (rev: number): WatchCacheEvent => {
    const obj = new CachedObject(
      { key: `k${rev}`, value: Buffer.from('{}'), createRevision: rev, modRevision: rev },
      '',
      [],
      jsonCodec,
    );
    return new WatchCacheEvent('put', obj.key, rev, obj, null, clock.now());
  };
  let rev = 0;
  for (let i = 0; i < 1_000; i++) w.push(ev(++rev), clock.now()); // a burst within one second
  assert.equal(w.capacity, 1_600, 'doubled 100 -> 1600 to keep the burst');
  for (let i = 0; i < 2_000; i++) w.push(ev(++rev), clock.now());
  assert.equal(w.capacity, 1_600, 'never past the upper bound');
  assert.equal(w.length, 1_600);
  assert.equal(w.oldestRevision, rev - 1_600);
  clock.step(80_000);
  for (let i = 0; i < 10; i++) {
    clock.step(10_000);
    w.push(ev(++rev), clock.now());
  }
  assert.ok(w.capacity < 1_600, `shrinks once events are stale (capacity ${w.capacity})`);
  assert.equal(w.since(w.oldestRevision).length, w.length, 'every event after oldestRevision is held');
});
