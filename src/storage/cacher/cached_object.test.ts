import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CachedObject, EncodedObject, StringTable, jsonCodec, ownBytes } from './cached_object.js';
import { openCacher, pod } from './test_helpers.js';

const P = '/registry/pods/';

/** Whether `b` is the whole of its ArrayBuffer, so keeping it pins nothing else. */
const ownsBuffer = (b: Buffer): boolean => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;

test('ownBytes copies a pooled slice into an exact-size buffer and keeps an owned one as is', () => {
  const pooled = Buffer.from('{"kind":"Pod","metadata":{"name":"a"}}');
  assert.ok(!ownsBuffer(pooled), 'a small Buffer.from is a slice of the shared pool (the premise)');
  const own = ownBytes(pooled);
  assert.ok(ownsBuffer(own));
  assert.deepEqual(own, pooled);
  assert.notEqual(own.buffer, pooled.buffer);
  assert.equal(ownBytes(own), own, 'an owned buffer is not copied again');
});

test('the cache keeps stored and encoded bytes outside the Buffer pool, with the same content', async () => {
  const f = await openCacher(P);
  try {
    const values = [0, 1, 2].map((i) => pod(`p${i}`, { node: `n${i}` }));
    assert.ok(
      values.every((v) => !ownsBuffer(v)),
      'the written values are pool slices (the premise)',
    );
    for (let i = 0; i < 3; i++) await f.sqlite.create(`${P}default/p${i}`, values[i]!);
    await f.sqlite.delete(`${P}default/p0`);
    await f.cacher.list(P); // a consistent read: the cache has applied every write
    const w = f.cacher.watchCache.window;
    const events = [];
    for (let i = w.firstAfter(0); i < w.end; i++) events.push(w.at(i));
    assert.equal(events.length, 4);
    for (const [i, ev] of events.slice(0, 3).entries()) {
      const obj = ev.object!;
      assert.ok(
        ownsBuffer(obj.value) && ownsBuffer(obj.kv.value),
        `event ${ev.revision}: stored bytes own their buffer`,
      );
      assert.deepEqual(obj.value, values[i]);
      const bytes = obj.bytes();
      assert.ok(ownsBuffer(bytes), `event ${ev.revision}: response bytes own their buffer`);
      assert.equal(
        (JSON.parse(bytes.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
        String(ev.revision),
      );
    }
    const del = events[3]!;
    assert.equal(del.type, 'delete');
    assert.ok(ownsBuffer(del.prevAtEvent().bytes()), "a DELETED event's own encoding owns its buffer");
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
    // Once bytes() is memoised, copyInto copies those.
    assert.equal(o.copyInto(target, 0), want.length);
    assert.equal(target.subarray(0, want.length).toString(), want.toString());
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
