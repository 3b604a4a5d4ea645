import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expired, isStorageError, unavailable } from '../errors.js';
import type { Storage, WatchEvent, Watcher } from '../interface.js';
import type { SqliteStorage } from '../sqlite/index.js';
import { failureOf, openCacher, pod, take, turn } from './test_helpers.js';

const P = '/registry/pods/';

/** `s` with its watch replaced by `watch`. */
function withWatch(s: SqliteStorage, watch: Storage['watch']): Storage {
  return new Proxy(s, {
    get(target, prop) {
      if (prop === 'watch') return watch;
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Wraps a storage so that each watch breaks (with `fail()`) after `every` events. */
function flaky(s: SqliteStorage, every: number, fail: () => Error, counts: { watches: number }): Storage {
  const watch = (prefix: string, opts?: Parameters<Storage['watch']>[1]): Watcher => {
    counts.watches++;
    const inner = s.watch(prefix, opts);
    const gen = (async function* (): AsyncGenerator<WatchEvent> {
      let n = 0;
      for await (const ev of inner) {
        yield ev;
        if (ev.type !== 'progress' && ++n >= every) {
          inner.stop();
          throw fail();
        }
      }
    })();
    return { stop: () => inner.stop(), [Symbol.asyncIterator]: () => gen };
  };
  return withWatch(s, watch);
}

test('a storage watch that breaks mid-stream is resumed with no event lost or duplicated', async () => {
  const counts = { watches: 0 };
  const f = await openCacher(P, {}, (s) => flaky(s, 7, () => unavailable('connection reset'), counts));
  try {
    const start = await f.sqlite.currentRevision();
    const direct = f.sqlite.watch(P, { fromRevision: start, progressNotify: false });
    const viaContract = f.cacher.watch(P, { progressNotify: false });
    const viaObjects = f.cacher.watchObjects({});
    await turn();
    const n = 300;
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; i < n / 6 / 2; i++) {
          const key = `${P}default/w${w}-${i}`;
          await f.sqlite.create(key, pod(key));
          if (i % 2 === 0) await f.sqlite.guaranteedUpdate(key, () => ({ value: pod(key, { phase: 'Running' }) }));
          else await f.sqlite.delete(key);
        }
      }),
    );
    const want = (await take(direct, n)).map((e) => `${e.type} ${e.key} ${e.revision}`);
    const got = (await take(viaContract, n)).map((e) => `${e.type} ${e.key} ${e.revision}`);
    assert.deepEqual(got, want);
    const objs = await take(viaObjects, n);
    assert.deepEqual(
      objs.map((e) => e.revision),
      want.map((l) => Number(l.split(' ')[2])),
    );
    assert.ok(counts.watches > 300 / 7, `the storage watch was restarted ${counts.watches} times`);
    assert.equal(f.cacher.metrics().initializations, 1, 'restarts resume; they never re-list');
    // Nothing extra arrives: the next event is the next write.
    const last = await f.sqlite.create(`${P}default/last`, pod('last'));
    assert.equal((await take(viaContract, 1))[0].revision, last.modRevision);
    direct.stop();
  } finally {
    await f.close();
  }
});

test('a compacted storage watch re-lists, and watchers get Expired instead of a gap', async () => {
  const counts = { watches: 0 };
  let fail = false;
  const f = await openCacher(P, {}, (s) => flaky(s, 1, () => (fail ? expired(1, 2) : unavailable('blip')), counts));
  try {
    await f.sqlite.create(`${P}default/a`, pod('a'));
    await f.cacher.list(P);
    const w = f.cacher.watchObjects({});
    await turn();
    fail = true;
    await f.sqlite.create(`${P}default/b`, pod('b'));
    const err = await failureOf(w);
    fail = false;
    assert.ok(isStorageError(err, 'Expired'), `got ${String(err)}`);
    assert.equal(f.cacher.metrics().initializations, 2);
    const page = await f.cacher.list(P);
    assert.deepEqual(
      page.items.map((kv) => kv.key),
      [`${P}default/a`, `${P}default/b`],
    );
  } finally {
    await f.close();
  }
});

/** Wraps a storage whose first watch silently drops the event at `dropRevision`, as the etcd3 client can. */
function dropping(s: SqliteStorage, dropRevision: () => number): Storage {
  let dropped = false;
  const watch = (prefix: string, opts?: Parameters<Storage['watch']>[1]): Watcher => {
    const inner = s.watch(prefix, opts);
    const gen = (async function* (): AsyncGenerator<WatchEvent> {
      for await (const ev of inner) {
        if (!dropped && ev.revision === dropRevision()) {
          dropped = true;
          continue;
        }
        yield ev;
      }
    })();
    return { stop: () => inner.stop(), [Symbol.asyncIterator]: () => gen };
  };
  return withWatch(s, watch);
}

test('a silently dropped event is detected at the next event of its key, and the cache re-lists instead of serving the gap', async () => {
  let target = Number.MAX_SAFE_INTEGER;
  const f = await openCacher(P, {}, (s) => dropping(s, () => target));
  try {
    const key = `${P}default/gap`;
    const created = await f.sqlite.create(key, pod('gap', { phase: 'v0' }));
    target = created.modRevision + 1;
    await f.sqlite.guaranteedUpdate(key, () => ({ value: pod('gap', { phase: 'v1' }) })); // dropped
    const last = await f.sqlite.guaranteedUpdate(key, () => ({ value: pod('gap', { phase: 'v2' }) }));
    for (let i = 0; i < 200 && f.cacher.metrics().initializations < 2; i++) await turn();
    const got = await f.cacher.get(key, { minRevision: last.modRevision });
    assert.equal(got.modRevision, last.modRevision);
    assert.match(got.value.toString(), /v2/);
    assert.ok(f.cacher.metrics().initializations >= 2, 'the cache re-listed after the gap');
  } finally {
    await f.close();
  }
});
