import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ObjectEvent } from '../objects.js';
import type { Indexer } from './watch_cache.js';
import { openCacher, pod, take, turn } from './test_helpers.js';

const P = '/registry/pods/';
const nodeName: Indexer = {
  name: 'spec.nodeName',
  fn: (o) => (o as { spec?: { nodeName?: string } }).spec?.nodeName ?? '',
};
const summary = (evs: ObjectEvent[]): string[] =>
  evs.map((e) => `${e.type} ${e.object!.key.slice(P.length)}@${e.revision}`);

test('field-indexed watches deliver exactly their subset, with transitions as ADDED and DELETED', async () => {
  const f = await openCacher(P, { indexers: [nodeName] });
  try {
    const c = f.cacher;
    const onA = c.watchObjects({ index: { name: 'spec.nodeName', value: 'node-a' } });
    const onB = c.watchObjects({ index: { name: 'spec.nodeName', value: 'node-b' } });
    const ns2 = c.watchObjects({ namespace: 'ns2' });
    const web = c.watchObjects({
      predicate: (o) => (o as { metadata: { labels?: Record<string, string> } }).metadata.labels?.app === 'web',
    });
    const all = c.watchObjects({});
    // 50 idle node watchers: an event for node-a must not be dispatched to them.
    const idle = Array.from({ length: 50 }, (_, i) =>
      c.watchObjects({ index: { name: 'spec.nodeName', value: `idle-${i}` } }),
    );
    await turn();
    const s = f.sqlite;
    const k = `${P}ns1/p`;
    const r1 = (await s.create(k, pod('p', { ns: 'ns1', labels: { app: 'web' } }))).modRevision; // unbound
    const r2 = (
      await s.guaranteedUpdate(k, () => ({ value: pod('p', { ns: 'ns1', node: 'node-a', labels: { app: 'web' } }) }))
    ).modRevision; // bound to a
    const r3 = (
      await s.guaranteedUpdate(k, () => ({ value: pod('p', { ns: 'ns1', node: 'node-b', labels: { app: 'db' } }) }))
    ).modRevision; // a -> b, leaves web
    const r4 = (
      await s.guaranteedUpdate(k, () => ({
        value: pod('p', { ns: 'ns1', node: 'node-b', labels: { app: 'db' }, phase: 'Running' }),
      }))
    ).modRevision;
    const q1 = (await s.create(`${P}ns2/q`, pod('q', { ns: 'ns2', node: 'node-a' }))).modRevision;
    const r5 = (await s.delete(k)).modRevision;
    await c.list(P); // consistent: every write above is dispatched
    const before = c.metrics().eventsDispatched;
    assert.deepEqual(summary(await take(onA, 3)), [`ADDED ns1/p@${r2}`, `DELETED ns1/p@${r3}`, `ADDED ns2/q@${q1}`]);
    assert.deepEqual(summary(await take(onB, 3)), [`ADDED ns1/p@${r3}`, `MODIFIED ns1/p@${r4}`, `DELETED ns1/p@${r5}`]);
    assert.deepEqual(summary(await take(ns2, 1)), [`ADDED ns2/q@${q1}`]);
    assert.deepEqual(summary(await take(web, 3)), [`ADDED ns1/p@${r1}`, `MODIFIED ns1/p@${r2}`, `DELETED ns1/p@${r3}`]);
    const everything = await take(all, 6);
    assert.deepEqual(summary(everything), [
      `ADDED ns1/p@${r1}`,
      `MODIFIED ns1/p@${r2}`,
      `MODIFIED ns1/p@${r3}`,
      `MODIFIED ns1/p@${r4}`,
      `ADDED ns2/q@${q1}`,
      `DELETED ns1/p@${r5}`,
    ]);
    // Nothing more for anyone: the next event is a marker only `all` sees.
    const marker = (await s.create(`${P}ns3/m`, pod('m', { ns: 'ns3' }))).modRevision;
    assert.deepEqual(summary(await take(all, 1)), [`ADDED ns3/m@${marker}`]);
    await c.list(P);
    for (const w of idle) w.stop();
    // Bytes carry the event's own resourceVersion; a deletion shows the last state at the deletion's revision.
    const del = everything[5];
    assert.match(del.object!.bytes().toString(), new RegExp(`"resourceVersion":"${r5}"`));
    assert.match(del.object!.bytes().toString(), /"phase":"Running"/);
    const left = (
      await take(c.watchObjects({ fromRevision: r2, index: { name: 'spec.nodeName', value: 'node-a' } }), 1)
    )[0];
    assert.match(
      left.object!.bytes().toString(),
      new RegExp(`"resourceVersion":"${r3}"`),
      'a selector exit is DELETED at the exit revision',
    );
    // Dispatch reached only interested watchers, never the 50 idle ones: all and web see 7 events each,
    // node-a 3 (routed by old and new node), node-b 3, ns2 1.
    assert.equal(c.metrics().eventsDispatched, 7 + 7 + 3 + 3 + 1);
    assert.equal(before, 7 + 7 + 3 + 3 + 1 - 2, 'the marker reached only all and web');
    for (const w of [onA, onB, ns2, web, all]) w.stop();
  } finally {
    await f.close();
  }
});

test('every watcher and list shares one encoding of an object version', async () => {
  const f = await openCacher(P, { indexers: [nodeName] });
  try {
    const a = f.cacher.watchObjects({});
    const b = f.cacher.watchObjects({ index: { name: 'spec.nodeName', value: 'n1' } });
    await turn();
    const kv = await f.sqlite.create(`${P}default/x`, pod('x', { node: 'n1' }));
    const [ea] = await take(a, 1);
    const [eb] = await take(b, 1);
    assert.equal(ea.object, eb.object, 'the same cached version, holding the one copy of its bytes');
    const listed = await f.cacher.listObjects({ index: { name: 'spec.nodeName', value: 'n1' } });
    assert.equal(listed.items[0], ea.object);
    assert.equal(await f.cacher.getObject(kv.key), ea.object);
    assert.deepEqual(JSON.parse(ea.object!.bytes().toString()).metadata, {
      resourceVersion: String(kv.modRevision),
      name: 'x',
      namespace: 'default',
    });
    // A watch from "0" starts with the matching current state.
    const initial = await take(
      f.cacher.watchObjects({ initialEvents: true, index: { name: 'spec.nodeName', value: 'n1' } }),
      1,
    );
    assert.deepEqual(summary(initial), [`ADDED default/x@${kv.modRevision}`]);
  } finally {
    await f.close();
  }
});

test('a write through the cacher is indexed from the object it noted, only while the stored bytes are the noted ones', async () => {
  const f = await openCacher(P, { indexers: [nodeName] });
  try {
    const c = f.cacher;
    const [p, q] = [`${P}ns1/p`, `${P}ns1/q`];
    const onNoted = c.watchObjects({ index: { name: 'spec.nodeName', value: 'noted' } });
    const onA = c.watchObjects({ index: { name: 'spec.nodeName', value: 'node-a' } });
    const onB = c.watchObjects({ index: { name: 'spec.nodeName', value: 'node-b' } });
    await turn();
    const r0 = (await f.sqlite.create(q, pod('q', { ns: 'ns1', node: 'node-a' }))).modRevision;
    // A consistent note (the object its bytes encode) indexes as the bytes would.
    const bytesA = pod('p', { ns: 'ns1', node: 'node-a' });
    const r1 = (await c.create(p, bytesA, { object: JSON.parse(bytesA.toString()) })).modRevision;
    // An object that disagrees with its bytes shows which one the cache read: the note, for these exact bytes.
    const r2 = (
      await c.guaranteedUpdate(p, () => ({
        value: pod('p', { ns: 'ns1', node: 'node-b' }),
        object: { spec: { nodeName: 'noted' } },
      }))
    ).modRevision;
    // A noted write that failed leaves its note; the key's next bytes differ from it, so they are scanned.
    await assert.rejects(
      c.create(q, pod('q', { ns: 'ns1', node: 'node-b' }), { object: { spec: { nodeName: 'noted' } } }),
    );
    const r3 = (
      await f.sqlite.guaranteedUpdate(q, () => ({ value: pod('q', { ns: 'ns1', node: 'node-b', phase: 'Running' }) }))
    ).modRevision;
    await c.list(P);
    assert.deepEqual(summary(await take(onA, 4)), [
      `ADDED ns1/q@${r0}`,
      `ADDED ns1/p@${r1}`,
      `DELETED ns1/p@${r2}`,
      `DELETED ns1/q@${r3}`,
    ]);
    assert.deepEqual(summary(await take(onNoted, 1)), [`ADDED ns1/p@${r2}`]);
    assert.deepEqual(summary(await take(onB, 1)), [`ADDED ns1/q@${r3}`]);
    for (const w of [onNoted, onA, onB]) w.stop();
  } finally {
    await f.close();
  }
});

test("a field selector on indexed fields is tested on the entries' index values, without decoding or calling the predicate", async () => {
  const phase: Indexer = {
    name: 'status.phase',
    path: ['status', 'phase'],
    fn: (o) => (o as { status?: { phase?: string } }).status?.phase ?? '',
  };
  const f = await openCacher(P, { indexers: [nodeName, phase] });
  try {
    const c = f.cacher;
    let calls = 0;
    // The scheduler's selector. The predicate would agree; it must not be needed.
    const notDone = Object.assign(
      (o: unknown) => {
        calls++;
        const p = (o as { status?: { phase?: string } }).status?.phase;
        return p !== 'Succeeded' && p !== 'Failed';
      },
      {
        fieldTerms: [
          { field: 'status.phase', operator: '!=' as const, value: 'Succeeded' },
          { field: 'status.phase', operator: '!=' as const, value: 'Failed' },
        ],
      },
    );
    const w = c.watchObjects({ predicate: notDone });
    // A term on a field the cache does not index falls back to the predicate.
    let other = 0;
    const byLabel = c.watchObjects({
      predicate: Object.assign(
        () => {
          other++;
          return true;
        },
        { fieldTerms: [{ field: 'spec.restartPolicy', operator: '=' as const, value: '' }] },
      ),
    });
    await turn();
    const s = f.sqlite;
    const k = `${P}ns1/p`;
    const r1 = (await s.create(k, pod('p', { ns: 'ns1' }))).modRevision;
    const r2 = (await s.guaranteedUpdate(k, () => ({ value: pod('p', { ns: 'ns1', phase: 'Running' }) }))).modRevision;
    const r3 = (await s.guaranteedUpdate(k, () => ({ value: pod('p', { ns: 'ns1', phase: 'Succeeded' }) })))
      .modRevision;
    await s.guaranteedUpdate(k, () => ({ value: pod('p', { ns: 'ns1', phase: 'Succeeded', node: 'n' }) }));
    const q = (await s.create(`${P}ns1/q`, pod('q', { ns: 'ns1', phase: 'Failed' }))).modRevision;
    const r4 = (await s.create(`${P}ns1/r`, pod('r', { ns: 'ns1', phase: 'Running' }))).modRevision;
    assert.deepEqual(summary(await take(w, 4)), [
      `ADDED ns1/p@${r1}`,
      `MODIFIED ns1/p@${r2}`,
      `DELETED ns1/p@${r3}`,
      `ADDED ns1/r@${r4}`,
    ]);
    assert.ok(q < r4);
    // A LIST with the same selector reads index values too.
    const listed = await c.listObjects({ predicate: notDone });
    assert.deepEqual(
      listed.items.map((o) => o.key.slice(P.length)),
      ['ns1/r'],
    );
    assert.equal(calls, 0, 'the predicate was never called');
    assert.equal((await take(byLabel, 1)).length, 1);
    assert.ok(other > 0, 'a term on an unindexed field is still tested by the predicate');
  } finally {
    await f.close();
  }
});

test('every kind of watch is filed while open and unfiled once stopped, including one filed by index and namespace', async () => {
  const f = await openCacher(P, { indexers: [nodeName] });
  try {
    const c = f.cacher;
    const watches = [
      c.watchObjects({ index: { name: 'spec.nodeName', value: 'node-a' } }),
      c.watchObjects({ index: { name: 'spec.nodeName', value: 'node-a' }, namespace: 'ns1' }),
      c.watchObjects({ namespace: 'ns1', allowBookmarks: true }),
      c.watchObjects({}),
      c.watch(`${P}ns1/`),
      c.watch(P),
    ];
    await turn();
    assert.equal(c.metrics().watchers, watches.length);
    // The index-and-namespace watch is routed by its index: it gets node-a's pod in ns1 once, and not ns2's.
    const both = watches[1]!;
    await f.sqlite.create(`${P}ns2/q`, pod('q', { ns: 'ns2', node: 'node-a' }));
    await f.sqlite.create(`${P}ns1/p`, pod('p', { ns: 'ns1', node: 'node-a' }));
    assert.deepEqual(summary(await take(both as AsyncIterable<ObjectEvent>, 1)), [
      `ADDED ns1/p@${(await f.sqlite.get(`${P}ns1/p`)).modRevision}`,
    ]);
    for (let i = 0; i < watches.length; i++) {
      watches[i]!.stop();
      await turn();
      assert.equal(c.metrics().watchers, watches.length - i - 1, `after stopping watch ${i}`);
    }
  } finally {
    await f.close();
  }
});
