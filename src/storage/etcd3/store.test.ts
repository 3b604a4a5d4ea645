/**
 * The conformance suite against a real etcd, plus the behaviours that only a
 * real etcd shows: the exclusive watch start, compaction under an open watch,
 * the NOSPACE alarm, an unreachable cluster and a replay over gRPC's 4 MB limit.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isStorageError } from '../errors.js';
import type { Watcher } from '../interface.js';
import { directObjects, runObjectConformance } from '../testing/object_tests.js';
import { collect, freshPrefix, runConformance } from '../testing/store_tests.js';
import { startEtcd, type EtcdProcess } from '../testing/etcd_process.js';
import { Etcd3Storage } from './store.js';

let etcd: EtcdProcess;
let store: Etcd3Storage;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const buf = (s: string): Buffer => Buffer.from(s);

before(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  store = new Etcd3Storage({ servers: [etcd.clientUrl] });
});

after(async () => {
  await store?.close();
  await etcd?.stop();
});

runConformance('etcd3', () => ({
  open: async () => store,
  advance: sleep,
  progressIntervalMs: etcd.progressNotifyIntervalMs,
}));

runObjectConformance('etcd3', () => directObjects(store));

/** Waits for the watcher to throw, failing the test after `ms`. */
async function errorOf(w: Watcher, ms = 10_000): Promise<unknown> {
  const timer = setTimeout(() => w.stop(), ms);
  try {
    for await (const _ of w) {
      // drain until the watch breaks
    }
    return new Error('the watch ended without an error');
  } catch (err) {
    return err;
  } finally {
    clearTimeout(timer);
  }
}

test('etcd3: a watch from R passes start_revision R+1, so R itself is never delivered', async () => {
  const p = freshPrefix('boundary');
  const a = await store.create(p + 'a', buf('a'));
  const b = await store.create(p + 'b', buf('b'));
  const fromA = store.watch(p, { fromRevision: a.modRevision });
  const fromB = store.watch(p, { fromRevision: b.modRevision });
  try {
    const [first] = await collect(fromA, 1);
    assert.deepEqual([first.key, first.revision], [p + 'b', b.modRevision]);
    const c = await store.create(p + 'c', buf('c'));
    const [next] = await collect(fromB, 1);
    assert.deepEqual(
      [next.key, next.revision],
      [p + 'c', c.modRevision],
      'watching from the newest revision starts with the next write',
    );
  } finally {
    fromA.stop();
    fromB.stop();
  }
});

test('etcd3: stopping one watcher leaves the others running', async () => {
  const p = freshPrefix('stopone');
  const w1 = store.watch(p);
  const w2 = store.watch(p);
  try {
    await sleep(100);
    w1.stop();
    await sleep(100);
    const made = await store.create(p + 'x', buf('x'));
    const [ev] = await collect(w2, 1);
    assert.equal(ev.revision, made.modRevision);
  } finally {
    w2.stop();
  }
});

test('etcd3: a compaction while a watch is still catching up ends it with Expired', async () => {
  const p = freshPrefix('compactwatch');
  const base = await store.currentRevision();
  // etcd replays at most 1000 revisions per sync round (every 100 ms), so a
  // watch over 3000 revisions is still unsynced when the compaction lands.
  for (let i = 0; i < 150; i++) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => store.create(`${p}k${i}-${j}`, buf('v'))));
  }
  const w = store.watch(p, { fromRevision: base });
  await store.compact(await store.currentRevision());
  const err = await errorOf(w);
  assert.ok(isStorageError(err, 'Expired'), `expected Expired, got ${String(err)}`);
  assert.ok((err as { revision: number }).revision > base, 'Expired names the compacted revision');
});

test('etcd3: a replay of more than 4 MB of events arrives complete', async () => {
  const p = freshPrefix('bigreplay');
  const base = await store.currentRevision();
  const value = Buffer.alloc(100 * 1024, 'r');
  const n = 60; // 6 MB, over gRPC's default 4 MB receive limit
  for (let i = 0; i < n; i++) await store.create(`${p}k${String(i).padStart(3, '0')}`, value);
  const w = store.watch(p, { fromRevision: base });
  try {
    const evs = await collect(w, n, 30_000);
    assert.equal(evs.length, n);
    assert.ok(evs.every((e) => e.kv!.value.length === value.length));
  } finally {
    w.stop();
  }
});

test('etcd3: a full database raises NoSpace until compaction, defragmentation and an explicit disarm recover it', async () => {
  const quota = 4 * 1024 * 1024;
  const small = await startEtcd({ extraFlags: [`--quota-backend-bytes=${quota}`] });
  const s = new Etcd3Storage({ servers: [small.clientUrl], quotaBytes: quota });
  try {
    const p = freshPrefix('nospace');
    const value = Buffer.alloc(512 * 1024, 'n');
    await s.create(p + 'k', value);
    let full: unknown = null;
    for (let i = 0; i < 100 && full === null; i++) {
      await s
        .guaranteedUpdate(p + 'k', () => ({ value: Buffer.alloc(512 * 1024, String(i % 10)) }))
        .catch((err: unknown) => (full = err));
    }
    assert.ok(isStorageError(full, 'NoSpace'), `expected NoSpace, got ${String(full)}`);
    assert.deepEqual((await s.status()).alarms, ['NOSPACE']);
    await assert.rejects(s.create(p + 'other', buf('x')), (err) => isStorageError(err, 'NoSpace'));
    // Reads still work under the alarm; compaction frees the superseded values.
    const live = await s.get(p + 'k');
    await assert.rejects(s.disarmAlarms(), /still exceeds the quota/, 'no disarm while over quota');
    await s.compact(await s.currentRevision());
    await s.defragment();
    assert.deepEqual((await s.status()).alarms, ['NOSPACE'], 'defragment alone leaves the alarm raised');
    await s.disarmAlarms();
    const st = await s.status();
    assert.deepEqual(st.alarms, [], 'the explicit disarm clears NOSPACE');
    assert.ok(st.dbSizeBytes < quota);
    await s.create(p + 'after', buf('writes work again'));
    assert.equal((await s.get(p + 'k')).modRevision, live.modRevision);
  } finally {
    await s.close();
    await small.stop();
  }
});

test('etcd3: an unreachable etcd fails reads, writes and watches with Unavailable, quickly', async () => {
  const gone = await startEtcd();
  const s = new Etcd3Storage({ servers: [gone.clientUrl], callTimeoutMs: 2000 });
  try {
    const p = freshPrefix('down');
    await s.create(p + 'k', buf('v'));
    await gone.stop();
    const started = Date.now();
    await assert.rejects(s.get(p + 'k'), (err) => isStorageError(err, 'Unavailable'));
    await assert.rejects(s.list(p), (err) => isStorageError(err, 'Unavailable'));
    await assert.rejects(s.create(p + 'new', buf('v')), (err) => isStorageError(err, 'Unavailable'));
    await assert.rejects(
      s.guaranteedUpdate(p + 'k', () => ({ value: buf('v2') })),
      (err) => isStorageError(err, 'Unavailable'),
    );
    const err = await errorOf(s.watch(p));
    assert.ok(isStorageError(err, 'Unavailable'), `expected Unavailable from the watch, got ${String(err)}`);
    assert.ok(Date.now() - started < 15_000, `failing took ${Date.now() - started} ms`);
  } finally {
    await s.close();
    await gone.stop();
  }
});

test('etcd3: reading past the current revision is TooLargeResourceVersion, naming the current one', async () => {
  const p = freshPrefix('future');
  const made = await store.create(p + 'k', buf('v'));
  const current = await store.currentRevision();
  await assert.rejects(
    store.get(p + 'k', { revision: current + 1000 }),
    (err) => isStorageError(err, 'TooLargeResourceVersion') && err.revision >= current,
  );
  await assert.rejects(store.list(p, { revision: current + 1000 }), (err) =>
    isStorageError(err, 'TooLargeResourceVersion'),
  );
  const page = await store.list(p, { limit: 1, revision: made.modRevision });
  assert.equal(page.revision, made.modRevision, 'an exact-revision list reports that revision');
});
