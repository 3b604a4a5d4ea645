/**
 * The storage conformance suite, like upstream's storage/testing/store_tests.go:
 * one function per behaviour, each taking a store factory, run unchanged
 * against every backend (sqlite, etcd3) and the cacher.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStorageError, StorageError, type StorageErrorCode } from '../errors.js';
import type { KeyValue, Storage, WatchEvent, Watcher } from '../interface.js';

/** How a test suite obtains stores of one backend. */
export interface StoreFactory {
  /** A store to test against; it may be shared between tests, which then use distinct prefixes. */
  open(): Promise<Storage>;
  /** Let `ms` of time pass for TTL and progress tests (a fake clock steps; a real backend sleeps). */
  advance(ms: number): Promise<void>;
  /** Whether idle watchers receive progress events after `advance(progressIntervalMs)`. */
  progressIntervalMs: number;
}

let prefixSeq = 0;
/** A fresh key prefix per test, so tests can share one store. */
export function freshPrefix(name: string): string {
  return `/registry/conformance-${process.pid}-${Date.now().toString(36)}-${++prefixSeq}-${name}/`;
}

const buf = (s: string): Buffer => Buffer.from(s);
const str = (kv: KeyValue): string => kv.value.toString('utf8');

async function expectCode(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isStorageError(err), `expected StorageError ${code}, got ${String(err)}`);
    assert.equal(err.code, code, (err as Error).message);
    return err;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

/** Reads `n` events from a watcher, skipping progress events unless asked, failing after `ms`. */
export async function collect(w: Watcher, n: number, ms = 10_000, withProgress = false): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  while (out.length < n) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${out.length}/${n} events`);
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      it.next(),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
    ]);
    clearTimeout(timer);
    if (r === 'timeout') throw new Error(`timed out after ${out.length}/${n} events`);
    if (r.done === true) throw new Error(`watch ended after ${out.length}/${n} events`);
    if (r.value.type === 'progress' && !withProgress) continue;
    out.push(r.value);
  }
  return out;
}

/** Waits for the watcher to throw, returning the error. */
async function collectError(w: Watcher, ms = 10_000): Promise<unknown> {
  const it = w[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return new Error('timed out waiting for the watch to fail');
    let timer: NodeJS.Timeout | undefined;
    try {
      const r = await Promise.race([
        it.next(),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
      ]);
      if (r === 'timeout') return new Error('timed out waiting for the watch to fail');
      if (r.done === true) return new Error('watch ended without an error');
    } catch (err) {
      return err;
    } finally {
      clearTimeout(timer);
    }
  }
}

export async function testCreateAndGet(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('create');
  const before = await s.currentRevision();
  const a = await s.create(p + 'a', buf('1'));
  assert.ok(a.modRevision > before, 'create advances the revision');
  assert.equal(a.createRevision, a.modRevision);
  assert.equal(await s.currentRevision(), a.modRevision);
  const b = await s.create(p + 'b', buf('2'));
  assert.ok(b.modRevision > a.modRevision);
  const got = await s.get(p + 'a');
  assert.equal(str(got), '1');
  assert.equal(got.modRevision, a.modRevision);
  assert.equal(got.key, p + 'a');
  await expectCode(s.create(p + 'a', buf('again')), 'KeyExists');
  await expectCode(s.get(p + 'missing'), 'KeyNotFound');
  assert.equal(await s.currentRevision(), b.modRevision, 'a failed create does not advance the revision');
}

export async function testGetAtRevision(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('getrev');
  await s.create(p + 'first', buf('so that revision v1-1 is not 0, which means latest'));
  const v1 = await s.create(p + 'k', buf('v1'));
  const v2 = await s.guaranteedUpdate(p + 'k', () => ({ value: buf('v2') }));
  assert.equal(str(await s.get(p + 'k', { revision: v1.modRevision })), 'v1');
  assert.equal(str(await s.get(p + 'k', { revision: v2.modRevision })), 'v2');
  assert.equal(str(await s.get(p + 'k')), 'v2');
  await expectCode(s.get(p + 'k', { revision: v1.modRevision - 1 }), 'KeyNotFound');
  const del = await s.delete(p + 'k');
  await expectCode(s.get(p + 'k'), 'KeyNotFound');
  assert.equal(str(await s.get(p + 'k', { revision: del.modRevision - 1 })), 'v2');
}

export async function testGuaranteedUpdate(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('gu');
  await expectCode(
    s.guaranteedUpdate(p + 'missing', () => ({ value: buf('x') })),
    'KeyNotFound',
  );
  const created = await s.guaranteedUpdate(p + 'made', (cur) => ({ value: buf(cur === null ? 'new' : 'old') }), {
    ignoreNotFound: true,
  });
  assert.equal(str(created), 'new');
  assert.equal(created.createRevision, created.modRevision);
  const u1 = await s.guaranteedUpdate(p + 'made', (cur) => ({ value: buf(str(cur!) + '+') }));
  assert.equal(str(u1), 'new+');
  assert.equal(u1.createRevision, created.createRevision);
  assert.ok(u1.modRevision > created.modRevision);
  // A precondition on a stale mod revision is a Conflict, and writes nothing.
  await expectCode(
    s.guaranteedUpdate(p + 'made', () => ({ value: buf('stale') }), {
      precondition: { modRevision: created.modRevision },
    }),
    'Conflict',
  );
  assert.equal(str(await s.get(p + 'made')), 'new+');
  const u2 = await s.guaranteedUpdate(p + 'made', () => ({ value: buf('fresh') }), {
    precondition: { modRevision: u1.modRevision },
  });
  assert.equal(str(u2), 'fresh');
  // An unchanged value is a no-op: no new revision.
  const rev = await s.currentRevision();
  const same = await s.guaranteedUpdate(p + 'made', (cur) => ({ value: cur!.value }));
  assert.equal(same.modRevision, u2.modRevision);
  assert.equal(await s.currentRevision(), rev);
  // An error thrown by tryUpdate aborts the update and reaches the caller.
  await assert.rejects(
    s.guaranteedUpdate(p + 'made', () => {
      throw new Error('refused');
    }),
    /refused/,
  );
  assert.equal(str(await s.get(p + 'made')), 'fresh');
}

/**
 * A cached copy (cachedExisting, as the watch cache passes) is only a starting point: a stale one
 * never decides the outcome. A backend may also ignore it; the results are the same.
 */
export async function testGuaranteedUpdateStaleCachedCopy(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('gucache');
  const k = p + 'k';
  const v1 = await s.create(k, buf('v1'));
  const v2 = await s.guaranteedUpdate(k, () => ({ value: buf('v2') }));
  // A write starts from storage's value, not the stale copy's.
  const u = await s.guaranteedUpdate(k, (cur) => ({ value: buf(str(cur!) + '+') }), { cachedExisting: v1 });
  assert.equal(str(u), 'v2+');
  assert.ok(u.modRevision > v2.modRevision);
  // A precondition the stale copy fails but storage meets succeeds.
  const u2 = await s.guaranteedUpdate(k, (cur) => ({ value: buf(str(cur!) + '+') }), {
    cachedExisting: v1,
    precondition: { modRevision: u.modRevision },
  });
  assert.equal(str(u2), 'v2++');
  // A precondition storage fails is a Conflict, even when the cached copy meets it.
  await expectCode(
    s.guaranteedUpdate(k, () => ({ value: buf('x') }), {
      cachedExisting: u,
      precondition: { modRevision: u.modRevision },
    }),
    'Conflict',
  );
  // An error tryUpdate raises on the stale copy is retried on storage's value.
  const u3 = await s.guaranteedUpdate(
    k,
    (cur) => {
      if (str(cur!) === 'v1') throw new Error('stale');
      return { value: buf(str(cur!) + '!') };
    },
    { cachedExisting: v1 },
  );
  assert.equal(str(u3), 'v2++!');
  // ... while an error on current data reaches the caller.
  await assert.rejects(
    s.guaranteedUpdate(
      k,
      () => {
        throw new Error('refused');
      },
      { cachedExisting: u3 },
    ),
    /refused/,
  );
  // "No change" against a stale copy is not a no-op: the write goes to storage's value.
  const rev = await s.currentRevision();
  const back = await s.guaranteedUpdate(k, (cur) => ({ value: str(cur!) === 'v1' ? cur!.value : buf('v1') }), {
    cachedExisting: v1,
  });
  assert.equal(str(back), 'v1');
  assert.ok(back.modRevision > rev, 'the value was written');
  // A no-op against the stale copy that is also a no-op against storage returns storage's record.
  const same = await s.guaranteedUpdate(k, (cur) => ({ value: cur!.value }), { cachedExisting: v1 });
  assert.equal(same.modRevision, back.modRevision);
  assert.equal(str(await s.get(k)), 'v1');
  // A stale copy of a deleted key: without ignoreNotFound the update fails with KeyNotFound.
  await s.delete(k);
  await expectCode(
    s.guaranteedUpdate(k, (cur) => ({ value: buf(str(cur!) + '?') }), { cachedExisting: back }),
    'KeyNotFound',
  );
}

export async function testConcurrentCompareAndSwap(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('cas');
  await s.create(p + 'counter', buf('0'));
  const writers = 16;
  const each = 10;
  let attempts = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let i = 0; i < each; i++) {
        await s.guaranteedUpdate(p + 'counter', async (cur) => {
          attempts++;
          await new Promise((r) => setImmediate(r)); // widen the race window
          return { value: buf(String(Number(str(cur!)) + 1)) };
        });
      }
    }),
  );
  assert.equal(str(await s.get(p + 'counter')), String(writers * each), 'no lost update');
  assert.ok(attempts >= writers * each);
}

export async function testDelete(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('delete');
  const c = await s.create(p + 'k', buf('v'));
  await expectCode(s.delete(p + 'k', { precondition: { modRevision: c.modRevision + 1000 } }), 'Conflict');
  await expectCode(
    s.delete(p + 'k', {
      validate: () => {
        throw new StorageError('Conflict', 'validation refused');
      },
    }),
    'Conflict',
  );
  assert.equal(str(await s.get(p + 'k')), 'v');
  const d = await s.delete(p + 'k', { precondition: { modRevision: c.modRevision } });
  assert.equal(str(d), 'v');
  assert.ok(d.modRevision > c.modRevision, 'the delete has its own revision');
  assert.equal(await s.currentRevision(), d.modRevision);
  await expectCode(s.delete(p + 'k'), 'KeyNotFound');
  // A key can be created again after deletion, with a new create revision.
  const again = await s.create(p + 'k', buf('v2'));
  assert.ok(again.createRevision > c.createRevision);
}

export async function testList(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('list');
  const other = p.slice(0, -1) + 'x/';
  for (const k of ['c', 'a', 'b']) await s.create(p + k, buf(k));
  await s.create(other + 'z', buf('z'));
  await s.create(p.slice(0, -1), buf('not under the prefix'));
  const r1 = await s.list(p);
  assert.deepEqual(
    r1.items.map((kv) => kv.key),
    [p + 'a', p + 'b', p + 'c'],
  );
  assert.equal(r1.revision, await s.currentRevision());
  assert.equal(r1.continue, undefined);
  await s.delete(p + 'b');
  await s.guaranteedUpdate(p + 'a', () => ({ value: buf('a2') }));
  const r2 = await s.list(p);
  assert.deepEqual(
    r2.items.map((kv) => `${kv.key.slice(p.length)}=${str(kv)}`),
    ['a=a2', 'c=c'],
  );
  // The old state is still readable at the old revision.
  const old = await s.list(p, { revision: r1.revision });
  assert.deepEqual(
    old.items.map((kv) => `${kv.key.slice(p.length)}=${str(kv)}`),
    ['a=a', 'b=b', 'c=c'],
  );
  assert.equal(old.revision, r1.revision);
  const empty = await s.list(freshPrefix('nothing'));
  assert.deepEqual(empty.items, []);
  assert.ok(empty.revision >= r2.revision);
}

export async function testPaginationConsistentUnderWrites(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('page');
  const n = 57;
  for (let i = 0; i < n; i++) await s.create(`${p}k${String(i).padStart(3, '0')}`, buf(`v${i}`));
  const seen: string[] = [];
  let token: string | undefined;
  let firstRev = 0;
  let pages = 0;
  let writes = 0;
  do {
    const page = await s.list(p, { limit: 10, ...(token === undefined ? {} : { continue: token }) });
    pages++;
    if (firstRev === 0) firstRev = page.revision;
    assert.equal(page.revision, firstRev, 'every page is read at the first page revision');
    assert.ok(page.items.length <= 10);
    if (page.continue !== undefined)
      assert.equal(page.remainingItemCount === undefined || page.remainingItemCount > 0, true);
    seen.push(...page.items.map((kv) => `${kv.key.slice(p.length)}=${str(kv)}`));
    token = page.continue;
    // Writes between pages must not leak into later pages.
    await s.create(`${p}k${String(writes).padStart(3, '0')}-new`, buf('new'));
    await s.guaranteedUpdate(`${p}k${String(n - 1 - writes).padStart(3, '0')}`, () => ({ value: buf('changed') }));
    await s.delete(`${p}k${String(writes + 20).padStart(3, '0')}`);
    writes++;
  } while (token !== undefined && pages < 100);
  assert.equal(pages, 6);
  assert.deepEqual(
    seen,
    Array.from({ length: n }, (_, i) => `k${String(i).padStart(3, '0')}=v${i}`),
  );
  await expectCode(s.list(p, { continue: 'not-a-token' }), 'InvalidContinue');
}

export async function testWatchFromRevisionIsExclusive(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('watchexcl');
  const r1 = await s.create(p + 'one', buf('1'));
  const r2 = await s.create(p + 'two', buf('2'));
  const r3 = await s.guaranteedUpdate(p + 'one', () => ({ value: buf('1b') }));
  const w = s.watch(p, { fromRevision: r1.modRevision });
  try {
    const evs = await collect(w, 2);
    assert.deepEqual(
      evs.map((e) => [e.type, e.key, e.revision]),
      [
        ['put', p + 'two', r2.modRevision],
        ['put', p + 'one', r3.modRevision],
      ],
    );
    assert.equal(evs[1].prevKv !== undefined && str(evs[1].prevKv), '1', 'the previous value comes with the event');
    assert.equal(evs[0].prevKv, undefined, 'a creation has no previous value');
  } finally {
    w.stop();
  }
}

export async function testWatchOrderUnderConcurrentWriters(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('watchorder');
  const start = await s.currentRevision();
  const w = s.watch(p, { fromRevision: start });
  const writers = 10;
  const each = 20;
  const got = collect(w, writers * each * 2, 30_000);
  await Promise.all(
    Array.from({ length: writers }, async (_, wi) => {
      for (let i = 0; i < each; i++) {
        const key = `${p}w${wi}-${i}`;
        await s.create(key, buf('a'));
        await s.guaranteedUpdate(key, () => ({ value: buf('b') }));
      }
    }),
  );
  try {
    const evs = await got;
    for (let i = 1; i < evs.length; i++)
      assert.ok(evs[i].revision > evs[i - 1].revision, 'revisions strictly increase');
    const keys = new Map<string, string[]>();
    for (const e of evs) {
      keys.set(e.key, [...(keys.get(e.key) ?? []), str(e.kv!)]);
      if (str(e.kv!) === 'b') assert.equal(str(e.prevKv!), 'a');
    }
    assert.equal(keys.size, writers * each);
    for (const vals of keys.values()) assert.deepEqual(vals, ['a', 'b']);
  } finally {
    w.stop();
  }
}

export async function testWatchFromOldRevision(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('watchold');
  await s.create(p + 'base', buf('so that the base revision is not 0, which means now'));
  const base = await s.currentRevision();
  for (let i = 0; i < 20; i++) await s.create(`${p}k${i}`, buf(String(i)));
  await s.delete(`${p}k3`);
  const w = s.watch(p, { fromRevision: base });
  try {
    const evs = await collect(w, 21);
    assert.ok(!evs.some((e) => e.key === p + 'base'), 'the event at the base revision itself is not replayed');
    assert.deepEqual(
      evs.slice(0, 20).map((e) => str(e.kv!)),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
    assert.equal(evs[20].type, 'delete');
    assert.equal(evs[20].key, `${p}k3`);
    assert.equal(str(evs[20].prevKv!), '3', 'a delete carries the deleted value');
    // Live events follow the replay without a gap.
    const live = await s.create(`${p}live`, buf('live'));
    const [ev] = await collect(w, 1);
    assert.equal(ev.revision, live.modRevision);
  } finally {
    w.stop();
  }
}

export async function testWatchPrefixIsolation(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('watchiso');
  const sibling = p.slice(0, -1) + 'sibling/';
  const w = s.watch(p);
  try {
    await new Promise((r) => setTimeout(r, 50));
    await s.create(sibling + 'x', buf('no'));
    const mine = await s.create(p + 'x', buf('yes'));
    const [ev] = await collect(w, 1);
    assert.equal(ev.key, p + 'x');
    assert.equal(ev.revision, mine.modRevision);
  } finally {
    w.stop();
  }
}

export async function testCompaction(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('compact');
  const v1 = await s.create(p + 'k', buf('v1'));
  const v2 = await s.guaranteedUpdate(p + 'k', () => ({ value: buf('v2') }));
  const gone = await s.create(p + 'gone', buf('x'));
  await s.delete(p + 'gone');
  const keep = await s.create(p + 'keep', buf('keep'));
  await s.guaranteedUpdate(p + 'k', () => ({ value: buf('v3') }));
  await s.compact(keep.modRevision);
  await expectCode(s.get(p + 'k', { revision: v1.modRevision }), 'Expired');
  await expectCode(s.list(p, { revision: gone.modRevision }), 'Expired');
  const at = await s.list(p, { revision: keep.modRevision });
  assert.deepEqual(
    at.items.map((kv) => `${kv.key.slice(p.length)}=${str(kv)}`),
    ['k=v2', 'keep=keep'],
    'the compacted revision itself stays readable',
  );
  assert.equal(str(await s.get(p + 'k')), 'v3');
  const err = await collectError(s.watch(p, { fromRevision: v2.modRevision - 1 }));
  assert.ok(
    isStorageError(err, 'Expired'),
    `watch below the compacted revision fails with Expired, got ${String(err)}`,
  );
  // Watching from exactly the compacted revision delivers what followed it.
  const w = s.watch(p, { fromRevision: keep.modRevision });
  try {
    const [ev] = await collect(w, 1);
    assert.equal(str(ev.kv!), 'v3');
    assert.equal(str(ev.prevKv!), 'v2');
  } finally {
    w.stop();
  }
  await s.compact(v1.modRevision); // older than the compacted revision: a no-op
  assert.ok((await s.status()).compactedRevision >= keep.modRevision);
}

export async function testProgressNotify(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('progress');
  const w = s.watch(p, { progressNotify: true });
  try {
    await new Promise((r) => setTimeout(r, 50));
    const other = await s.create(freshPrefix('elsewhere') + 'x', buf('x'));
    await f.advance(f.progressIntervalMs * 2);
    const [ev] = await collect(w, 1, Math.max(10_000, f.progressIntervalMs * 4), true);
    assert.equal(ev.type, 'progress');
    assert.ok(
      ev.revision >= other.modRevision,
      `progress carries the current revision (${ev.revision} >= ${other.modRevision})`,
    );
  } finally {
    w.stop();
  }
}

export async function testTTLExpiry(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('ttl');
  const w = s.watch(p);
  try {
    await new Promise((r) => setTimeout(r, 50));
    await s.create(p + 'event', buf('e'), { ttlSeconds: 2 });
    await s.create(p + 'forever', buf('f'));
    assert.equal(str(await s.get(p + 'event')), 'e');
    await f.advance(5_000);
    const deadline = Date.now() + 10_000;
    let items = (await s.list(p)).items;
    while (items.length !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      items = (await s.list(p)).items;
    }
    assert.deepEqual(
      items.map((kv) => kv.key),
      [p + 'forever'],
    );
    const evs = await collect(w, 3);
    assert.deepEqual(
      evs.map((e) => [e.type, e.key]),
      [
        ['put', p + 'event'],
        ['put', p + 'forever'],
        ['delete', p + 'event'],
      ],
    );
  } finally {
    w.stop();
  }
}

export async function testValueTooLarge(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const p = freshPrefix('large');
  await expectCode(s.create(p + 'big', Buffer.alloc(1.5 * 1024 * 1024 + 1, 'x')), 'TooLarge');
  await s.create(p + 'ok', Buffer.alloc(1024 * 1024, 'y'));
  await expectCode(
    s.guaranteedUpdate(p + 'ok', () => ({ value: Buffer.alloc(2 * 1024 * 1024, 'z') })),
    'TooLarge',
  );
  assert.equal((await s.get(p + 'ok')).value.length, 1024 * 1024);
}

export async function testStatus(f: StoreFactory): Promise<void> {
  const s = await f.open();
  const st = await s.status();
  assert.ok(st.dbSizeBytes > 0);
  assert.ok(st.quotaBytes > 0);
  assert.deepEqual(st.alarms, []);
  assert.equal(st.currentRevision, await s.currentRevision());
}

/** Every conformance test, by name. */
export const conformanceTests: Record<string, (f: StoreFactory) => Promise<void>> = {
  'create assigns increasing revisions and refuses an existing key': testCreateAndGet,
  'get reads a key as of an older revision': testGetAtRevision,
  'guaranteedUpdate compares and swaps on the mod revision': testGuaranteedUpdate,
  'guaranteedUpdate never lets a stale cached copy decide the outcome': testGuaranteedUpdateStaleCachedCopy,
  'concurrent compare-and-swap loses no update': testConcurrentCompareAndSwap,
  'delete honours preconditions and returns the deleted value': testDelete,
  'list is ordered, prefix-scoped and readable at a past revision': testList,
  'pagination pins every page to the first revision while writes continue': testPaginationConsistentUnderWrites,
  'watch from revision R delivers R+1 onward': testWatchFromRevisionIsExclusive,
  'watch delivers every change in order under concurrent writers': testWatchOrderUnderConcurrentWriters,
  'watch from an old revision replays history, then goes live': testWatchFromOldRevision,
  'watch sees only its prefix': testWatchPrefixIsolation,
  'compaction expires old revisions for get, list and watch': testCompaction,
  'idle watchers receive progress notifications': testProgressNotify,
  'keys with a TTL expire and are deleted with a watch event': testTTLExpiry,
  'values over 1.5 MiB are refused with TooLarge': testValueTooLarge,
  'status reports size, quota, alarms and revision': testStatus,
};

/** Registers every conformance test with node:test for one backend. */
export function runConformance(backend: string, factory: () => StoreFactory): void {
  for (const [name, fn] of Object.entries(conformanceTests)) {
    test(`${backend}: ${name}`, async () => fn(factory()));
  }
}
