/**
 * The object-level conformance suite: the contract the API server reads through
 * (objects.ts), run unchanged against DirectObjectStorage over every backend and
 * against the Cacher over each, like upstream's store_tests.go runs against etcd3
 * and the cacher. One function per behaviour, each taking a factory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cacher } from '../cacher/index.js';
import { DirectObjectStorage } from '../direct_objects.js';
import { isStorageError } from '../errors.js';
import type { KeyValue, Storage } from '../interface.js';
import type { Indexer, ObjectEvent, ObjectStorage, ObjectWatcher } from '../objects.js';
import { freshPrefix } from './store_tests.js';

/** One resource's objects to test: writes go through `writer`, reads through `objects`. */
export interface ObjectStoreUnderTest {
  writer: Storage;
  objects: ObjectStorage;
}

/** How a suite obtains an ObjectStorage for a fresh resource prefix. */
export interface ObjectStoreFactory {
  open(resourcePrefix: string, indexers: Indexer[]): Promise<ObjectStoreUnderTest>;
}

/** A factory over one store opened on first use and shared by every test (each uses a fresh prefix). */
export function onSharedStore(
  openStore: () => Promise<Storage>,
  over: (s: Storage) => ObjectStoreFactory,
): () => ObjectStoreFactory {
  let store: Promise<Storage> | undefined;
  return () => ({ open: async (prefix, indexers) => over(await (store ??= openStore())).open(prefix, indexers) });
}

/** The object contract read straight from `storage`. */
export function directObjects(storage: Storage): ObjectStoreFactory {
  return {
    open: async (resourcePrefix, indexers) => ({
      writer: storage,
      objects: new DirectObjectStorage({ storage, resourcePrefix, indexers }),
    }),
  };
}

/** The object contract served by a Cacher over `storage` (closed by `closeAll`), written through it as the API server does. */
export function cachedObjects(storage: Storage, cachers: Cacher[]): ObjectStoreFactory {
  return {
    async open(resourcePrefix, indexers) {
      const c = new Cacher({ storage, resourcePrefix, indexers, freshnessTimeoutMs: 300 });
      cachers.push(c);
      await c.ready();
      return { writer: c, objects: c };
    },
  };
}

const NODE_NAME: Indexer = {
  name: 'spec.nodeName',
  path: ['spec', 'nodeName'],
  fn: (o) => String((o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ''),
  shared: true,
};
const NAME: Indexer = {
  name: 'metadata.name',
  path: ['metadata', 'name'],
  fn: (o) => String((o as { metadata?: { name?: string } }).metadata?.name ?? ''),
};
const INDEXERS = [NODE_NAME, NAME];

/** What a test pod is made from (not the API kind). */
interface PodFixture {
  ns: string;
  name: string;
  node?: string;
  app?: string;
}

const podBytes = (p: PodFixture): Buffer =>
  Buffer.from(
    JSON.stringify({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: p.name, namespace: p.ns, ...(p.app === undefined ? {} : { labels: { app: p.app } }) },
      spec: p.node === undefined ? {} : { nodeName: p.node },
    }),
  );

type Decoded = { metadata: { name: string; resourceVersion: string; labels?: Record<string, string> } };
const decoded = (o: { decode(): unknown }): Decoded => o.decode() as Decoded;
const isWeb = (o: unknown): boolean => (o as Decoded).metadata.labels?.app === 'web';
const put = (t: ObjectStoreUnderTest, prefix: string, p: PodFixture): Promise<KeyValue> =>
  t.writer.create(`${prefix}${p.ns}/${p.name}`, podBytes(p));
const update = (t: ObjectStoreUnderTest, prefix: string, p: PodFixture): Promise<KeyValue> =>
  t.writer.guaranteedUpdate(`${prefix}${p.ns}/${p.name}`, () => ({ value: podBytes(p) }));

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err) => isStorageError(err) && err.code === code);
}

/** Reads `n` events (skipping bookmarks), failing after `ms`. */
async function take(w: ObjectWatcher, n: number, ms = 10_000): Promise<ObjectEvent[]> {
  const out: ObjectEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  const timer = setTimeout(() => w.stop(), ms);
  try {
    while (out.length < n) {
      const r = await it.next();
      if (r.done === true) throw new Error(`watch ended after ${out.length}/${n} events`);
      if (r.value.type !== 'BOOKMARK') out.push(r.value);
    }
    return out;
  } finally {
    clearTimeout(timer);
  }
}

const summary = (evs: ObjectEvent[]): string[] =>
  evs.map((e) => `${e.type} ${decoded(e.object!).metadata.name}@${e.revision}`);

/** get reads the latest state (consistent), an exact older revision, and fails with KeyNotFound and TooLargeResourceVersion. */
export async function testObjectGet(f: ObjectStoreFactory): Promise<void> {
  const prefix = freshPrefix('oget');
  const t = await f.open(prefix, INDEXERS);
  const v1 = await put(t, prefix, { ns: 'a', name: 'x', app: 'web' });
  const v2 = await update(t, prefix, { ns: 'a', name: 'x', app: 'db' });
  const now = await t.objects.getObject(`${prefix}a/x`);
  assert.equal(now.revision, v2.modRevision);
  assert.equal(decoded(now).metadata.resourceVersion, String(v2.modRevision));
  assert.match(now.bytes().toString(), new RegExp(`"resourceVersion":"${v2.modRevision}"`));
  const old = await t.objects.getObject(`${prefix}a/x`, { revision: v1.modRevision });
  assert.deepEqual([old.revision, decoded(old).metadata.labels?.app], [v1.modRevision, 'web']);
  const notOlder = await t.objects.getObject(`${prefix}a/x`, { minRevision: v2.modRevision });
  assert.equal(notOlder.revision, v2.modRevision);
  await expectCode(t.objects.getObject(`${prefix}a/missing`), 'KeyNotFound');
  await expectCode(
    t.objects.getObject(`${prefix}a/x`, { minRevision: v2.modRevision + 1_000_000 }),
    'TooLargeResourceVersion',
  );
}

/** list is key-ordered, namespace-scoped, filters by index and predicate, and reads an exact past revision. */
export async function testObjectList(f: ObjectStoreFactory): Promise<void> {
  const prefix = freshPrefix('olist');
  const t = await f.open(prefix, INDEXERS);
  await put(t, prefix, { ns: 'b', name: 'p2', node: 'n2', app: 'web' });
  await put(t, prefix, { ns: 'a', name: 'p1', node: 'n1', app: 'web' });
  const mid = await put(t, prefix, { ns: 'b', name: 'p3', node: 'n1' });
  await put(t, prefix, { ns: 'a', name: 'p4', node: 'n1', app: 'web' });
  const names = (l: { items: { decode(): unknown }[] }): string[] => l.items.map((o) => decoded(o).metadata.name);
  const all = await t.objects.listObjects();
  assert.deepEqual(names(all), ['p1', 'p4', 'p2', 'p3']);
  assert.ok(all.revision >= mid.modRevision);
  assert.equal(all.continue, undefined);
  assert.deepEqual(names(await t.objects.listObjects({ namespace: 'b' })), ['p2', 'p3']);
  assert.deepEqual(names(await t.objects.listObjects({ index: { name: 'spec.nodeName', value: 'n1' } })), [
    'p1',
    'p4',
    'p3',
  ]);
  assert.deepEqual(
    names(await t.objects.listObjects({ index: { name: 'spec.nodeName', value: 'n1' }, predicate: isWeb })),
    ['p1', 'p4'],
  );
  assert.deepEqual(names(await t.objects.listObjects({ namespace: 'a', predicate: (o) => !isWeb(o) })), []);
  const past = await t.objects.listObjects({ revision: mid.modRevision });
  assert.deepEqual([names(past), past.revision], [['p1', 'p2', 'p3'], mid.modRevision]);
  for (const item of past.items) assert.equal(decoded(item).metadata.resourceVersion, String(item.revision));
}

/** Pages of a filtered list, read with limit and continue, add up to the unpaged list, all at the first page's revision. */
export async function testObjectListPaging(f: ObjectStoreFactory): Promise<void> {
  const prefix = freshPrefix('opage');
  const t = await f.open(prefix, INDEXERS);
  for (let i = 0; i < 9; i++) await put(t, prefix, { ns: 'a', name: `p${i}`, ...(i % 3 === 0 ? {} : { app: 'web' }) });
  const want = (await t.objects.listObjects({ predicate: isWeb })).items.map((o) => o.key);
  assert.equal(want.length, 6);
  for (const predicate of [isWeb, undefined]) {
    const got: string[] = [];
    let token: string | undefined;
    let first = 0;
    do {
      const page = await t.objects.listObjects({
        limit: 4,
        ...(predicate === undefined ? {} : { predicate }),
        ...(token === undefined ? {} : { continue: token }),
      });
      if (first === 0) {
        first = page.revision;
        // A write after the first page is not seen by the later ones.
        await put(t, prefix, { ns: 'a', name: 'zz-late', app: 'web' });
      }
      assert.equal(page.revision, first, 'every page reads at the first page revision');
      assert.ok(page.items.length <= 4);
      got.push(...page.items.map((o) => o.key));
      token = page.continue;
    } while (token !== undefined);
    assert.deepEqual(got, predicate === undefined ? [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => `${prefix}a/p${i}`) : want);
    await t.writer.delete(`${prefix}a/zz-late`);
  }
}

/** A watch from R delivers changes after R with selector transitions: entering is ADDED, leaving DELETED at the leaving revision. */
export async function testObjectWatchTransitions(f: ObjectStoreFactory): Promise<void> {
  const prefix = freshPrefix('owatch');
  const t = await f.open(prefix, INDEXERS);
  const start = await put(t, prefix, { ns: 'a', name: 'before', app: 'web' });
  const web = t.objects.watchObjects({ fromRevision: start.modRevision, predicate: isWeb });
  const onN1 = t.objects.watchObjects({
    fromRevision: start.modRevision,
    index: { name: 'spec.nodeName', value: 'n1' },
  });
  const inB = t.objects.watchObjects({ fromRevision: start.modRevision, namespace: 'b' });
  try {
    const c = await put(t, prefix, { ns: 'a', name: 'x', node: 'n1', app: 'web' });
    await put(t, prefix, { ns: 'b', name: 'y', node: 'n2', app: 'db' });
    const out = await update(t, prefix, { ns: 'a', name: 'x', node: 'n2', app: 'db' });
    const back = await update(t, prefix, { ns: 'a', name: 'x', node: 'n2', app: 'web' });
    const gone = await t.writer.delete(`${prefix}a/x`);
    const evs = await take(web, 4);
    assert.deepEqual(summary(evs), [
      `ADDED x@${c.modRevision}`,
      `DELETED x@${out.modRevision}`,
      `ADDED x@${back.modRevision}`,
      `DELETED x@${gone.modRevision}`,
    ]);
    // Leaving shows the last matching state, at the revision it left.
    const left = decoded(evs[1]!.object!);
    assert.deepEqual([left.metadata.labels?.app, left.metadata.resourceVersion], ['web', String(out.modRevision)]);
    assert.deepEqual(summary(await take(onN1, 2)), [`ADDED x@${c.modRevision}`, `DELETED x@${out.modRevision}`]);
    const yb = await take(inB, 1);
    assert.deepEqual(summary(yb), [`ADDED y@${yb[0]!.revision}`]);
  } finally {
    web.stop();
    onN1.stop();
    inB.stop();
  }
}

/** A watch without a revision first sends the current objects as ADDED (a consistent read), then live changes. */
export async function testObjectWatchInitialEvents(f: ObjectStoreFactory): Promise<void> {
  const prefix = freshPrefix('oinit');
  const t = await f.open(prefix, INDEXERS);
  await put(t, prefix, { ns: 'a', name: 'p1', app: 'web' });
  await put(t, prefix, { ns: 'a', name: 'p2' });
  const p3 = await put(t, prefix, { ns: 'a', name: 'p3', app: 'web' });
  const w = t.objects.watchObjects({ initialEvents: true, consistent: true, predicate: isWeb });
  try {
    const initial = await take(w, 2);
    assert.deepEqual(
      initial.map((e) => `${e.type} ${decoded(e.object!).metadata.name}`),
      ['ADDED p1', 'ADDED p3'],
    );
    assert.equal(initial[1]!.revision, p3.modRevision);
    const p4 = await put(t, prefix, { ns: 'a', name: 'p4', app: 'web' });
    assert.deepEqual(summary(await take(w, 1)), [`ADDED p4@${p4.modRevision}`]);
  } finally {
    w.stop();
  }
}

/** A watch from a revision the store no longer has (compacted, and before the cache's window) fails with Expired. */
export async function testObjectWatchExpired(f: ObjectStoreFactory): Promise<void> {
  const prefix = freshPrefix('oexpired');
  const t = await f.open(prefix, INDEXERS);
  await put(t, prefix, { ns: 'a', name: 'p1' });
  const last = await put(t, prefix, { ns: 'a', name: 'p2' });
  await t.writer.compact(last.modRevision);
  const w = t.objects.watchObjects({ fromRevision: 1 });
  const timer = setTimeout(() => w.stop(), 10_000);
  try {
    await assert.rejects(
      (async () => {
        for await (const _ of w) {
          // drain until the watch breaks
        }
      })(),
      (err) => isStorageError(err) && err.code === 'Expired',
    );
  } finally {
    clearTimeout(timer);
    w.stop();
  }
}

/** Every object-level conformance test, by name. */
export const objectConformanceTests: Record<string, (f: ObjectStoreFactory) => Promise<void>> = {
  'objects: get reads the latest, an exact past revision, and fails as the contract says': testObjectGet,
  'objects: list filters by namespace, index and predicate, and reads an exact past revision': testObjectList,
  'objects: filtered pages add up to the whole list, all at the first page revision': testObjectListPaging,
  'objects: watch applies selector transitions from a revision': testObjectWatchTransitions,
  'objects: watch without a revision starts with the current objects': testObjectWatchInitialEvents,
  'objects: watch from a revision the store no longer has fails with Expired': testObjectWatchExpired,
};

/** Registers every object-level conformance test with node:test for one implementation. */
export function runObjectConformance(name: string, factory: () => ObjectStoreFactory): void {
  for (const [title, fn] of Object.entries(objectConformanceTests)) {
    test(`${name}: ${title}`, async () => fn(factory()));
  }
}
