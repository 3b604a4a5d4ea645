import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CachedObject, EncodedObject, StringTable, jsonCodec } from './cached_object.js';
import { ownsMemory } from '../testing/owns_memory.js';
import { openCacher, pod } from './test_helpers.js';

const P = '/registry/pods/';

/** Whether an object holds bytes in an ArrayBuffer of its own (a Buffer, typed array or ArrayBuffer field). */
const holdsArrayBuffer = (o: object): boolean =>
  Object.values(o).some((v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v));

test('an encoded object keeps its stored bytes as a string and gives them back byte for byte', () => {
  const json = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"é","labels":{"k":"日本"}},"spec":{}}';
  const o = new EncodedObject('/k', Buffer.from(json), 5, jsonCodec);
  assert.ok(!holdsArrayBuffer(o), 'no ArrayBuffer per object: V8 counts those toward its external-memory trigger');
  assert.deepEqual(o.value, Buffer.from(json));
  // An update's current value lives on as its event's prevKv: it is not a slice of Node's shared pool.
  assert.ok(ownsMemory(o.value));
  assert.equal(o.size, Buffer.byteLength(json));
  assert.deepEqual(o.decode(), {
    ...JSON.parse(json),
    metadata: { ...JSON.parse(json).metadata, resourceVersion: '5' },
  });
  const raw = Buffer.from([0x7b, 0xff, 0x00, 0xc3, 0x7d]); // not even UTF-8: still kept exactly
  assert.deepEqual(new EncodedObject('/k', raw, 1, jsonCodec).value, raw);
  const later = new EncodedObject('/k', o, 9, jsonCodec);
  assert.equal(JSON.parse(later.bytes().toString()).metadata.resourceVersion, '9');
  assert.equal(JSON.parse(later.bytes().toString()).metadata.labels.k, '日本');
});

test('the cache keeps each version as a string, with the same content and the resourceVersion spliced in', async () => {
  const f = await openCacher(P);
  try {
    const values = [0, 1, 2].map((i) => pod(`p${i}`, { node: `n${i}` }));
    for (let i = 0; i < 3; i++) await f.sqlite.create(`${P}default/p${i}`, values[i]!);
    await f.sqlite.delete(`${P}default/p0`);
    await f.cacher.list(P); // a consistent read: the cache has applied every write
    const w = f.cacher.watchCache.window;
    const events = [];
    for (let i = w.firstAfter(0); i < w.end; i++) events.push(w.at(i));
    assert.equal(events.length, 4);
    for (const [i, ev] of events.slice(0, 3).entries()) {
      const obj = ev.object!;
      assert.ok(!holdsArrayBuffer(obj), `event ${ev.revision}: no ArrayBuffer in the entry`);
      assert.deepEqual(obj.value, values[i]);
      assert.deepEqual(obj.kv.value, values[i]);
      assert.equal(
        (JSON.parse(obj.bytes().toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
        String(ev.revision),
      );
    }
    const del = events[3]!;
    assert.equal(del.type, 'delete');
    const shown = del.prevAtEvent();
    assert.ok(!holdsArrayBuffer(shown));
    assert.equal(JSON.parse(shown.bytes().toString()).metadata.resourceVersion, String(del.revision));
  } finally {
    await f.close();
  }
});

test('copyInto writes the same bytes as bytes() with the resourceVersion spliced in, and refuses what passes the limit', () => {
  const enc = (json: string, rv: number): EncodedObject => new EncodedObject('/k', Buffer.from(json), rv, jsonCodec);
  const cases = [
    enc('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"é"}},"spec":{}}', 42),
    enc('{"kind":"Pod","apiVersion":"v1","metadata":{},"spec":{}}', 7),
    enc('{"kind":"Pod","apiVersion":"v1"}', 9),
  ];
  for (const o of cases) {
    const want = o.bytes();
    const fresh = new EncodedObject(o.key, o.value, o.revision, jsonCodec);
    const target = Buffer.alloc(want.length + 10, 0x2e);
    const end = fresh.copyInto(target, 5);
    assert.equal(end, 5 + want.length);
    assert.equal(target.subarray(5, end).toString(), want.toString());
    assert.equal(
      target.subarray(0, 5).toString() + target.subarray(end).toString(),
      '.'.repeat(10),
      'nothing outside its range is touched',
    );
    assert.equal(fresh.copyInto(target, 5, 4 + want.length), -1, 'one byte short of the limit');
    assert.equal(fresh.copyInto(Buffer.alloc(want.length - 1), 0), -1);
  }
  assert.equal(JSON.parse(cases[0]!.bytes().toString()).metadata.resourceVersion, '42');
  assert.equal(JSON.parse(cases[1]!.bytes().toString()).metadata.resourceVersion, '7');
});

test('an entry gives back each of its index values, for none, one, two and more indexers', () => {
  const kv = { key: `${P}default/a`, value: Buffer.from('{}'), createRevision: 1, modRevision: 2 };
  for (const values of [[], ['n1'], ['n1', 'a'], ['n1', 'a', 'Running', 'x']]) {
    const o = new CachedObject(kv, 'default', values, jsonCodec);
    assert.deepEqual(
      values.map((_, i) => o.indexValue(i)),
      values,
    );
  }
});

test('a string table gives back equal strings, also past its bound', () => {
  const t = new StringTable(2);
  const parsed = (s: string): string => (JSON.parse(JSON.stringify({ s })) as { s: string }).s;
  for (const s of ['node-1', 'node-2', 'node-3', 'node-1', 'node-3']) assert.equal(t.intern(parsed(s)), s);
});
