import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decode, encodeForStorage } from '../codec.js';
import { deepCopy } from '../object.js';
import { DecodedObjects } from './decoded.js';

const kvOf = (value: Buffer, modRevision: number): { key: string; value: Buffer; createRevision: number; modRevision: number } =>
  ({ key: '/k', value, createRevision: 1, modRevision });

function pod(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    spec: { containers: [{ name: 'a', image: 'x', args: ['1', undefined] }], gone: undefined, n: Number.NaN },
    metadata: { name: 'p', resourceVersion: '5', labels: { a: 'b' }, ['__proto__' as string]: undefined },
  };
}

test('a remembered write decodes exactly as its stored bytes do: same values, same key order, fresh copies', () => {
  const d = new DecodedObjects();
  const obj = pod();
  Object.defineProperty(obj.metadata, '__proto__', { value: { x: 1 }, enumerable: true, writable: true, configurable: true });
  const value = encodeForStorage(obj);
  d.remember('/k', value, obj);
  assert.equal(d.size, 0, 'a first write only notes the key');
  d.remember('/k', value, obj);
  assert.equal(d.size, 1);
  // The caller keeps using its object: that must not reach the remembered copy.
  ((obj.spec as { containers: { image: string }[] }).containers[0]).image = 'changed';
  const got = d.decode('/k', kvOf(Buffer.from(value), 12));
  const want = decode(kvOf(value, 12));
  assert.deepEqual(got, want);
  assert.equal(JSON.stringify(got), JSON.stringify(want));
  assert.equal(Object.getPrototypeOf(got.metadata), Object.prototype);
  // Each decode is the caller's own.
  (got.metadata as { labels: Record<string, string> }).labels.a = 'mutated';
  assert.deepEqual(d.decode('/k', kvOf(value, 13)).metadata.labels, { a: 'b' });
});

test('bytes that are not the remembered ones are parsed, and objects JSON cannot round-trip are not remembered', () => {
  const d = new DecodedObjects();
  const obj = pod();
  d.remember('/k', encodeForStorage(obj), obj);
  d.remember('/k', encodeForStorage(obj), obj);
  const other = deepCopy(obj);
  (other.metadata as { labels: Record<string, string> }).labels.a = 'elsewhere';
  const otherBytes = encodeForStorage(other);
  assert.equal(d.decode('/k', kvOf(otherBytes, 20)).metadata.labels.a, 'elsewhere');
  const dated = { ...pod(), spec: { when: new Date(0) } };
  d.remember('/k', encodeForStorage(dated), dated);
  assert.equal(d.size, 0, 'the rewrite with a Date replaced the kept entry and was not kept');
  assert.deepEqual(d.decode('/k', kvOf(encodeForStorage(dated), 21)).spec, { when: '1970-01-01T00:00:00.000Z' });
});

test('the map keeps only the most recent writes', () => {
  const d = new DecodedObjects(2);
  for (const k of ['/a', '/b', '/c', '/a', '/b', '/c']) d.remember(k, encodeForStorage(pod()), pod());
  // Each key was written twice; '/a' was the oldest kept write, so it was evicted, '/b' and '/c' stay.
  assert.equal(d.size, 2);
  const v = encodeForStorage(pod());
  d.remember('/a', v, pod());
  assert.equal(d.size, 2, "'/a' was evicted and its key forgotten, so this write only notes it");
});

test('keys written once are only noted, so churn over many objects copies nothing, and the note is bounded', () => {
  const d = new DecodedObjects(4);
  // 100 distinct keys, each written once: nothing kept, and only the last 16 (4 × max) are noted.
  for (let i = 0; i < 100; i++) d.remember(`/p${i}`, encodeForStorage(pod()), pod());
  assert.equal(d.size, 0);
  d.remember('/p0', encodeForStorage(pod()), pod());
  assert.equal(d.size, 0, '/p0 fell out of the note, so its second write counts as a first');
  d.remember('/p99', encodeForStorage(pod()), pod());
  assert.equal(d.size, 1, '/p99 was noted, so its second write is kept');
  const value = encodeForStorage(pod());
  d.remember('/p99', value, pod());
  assert.deepEqual(d.decode('/p99', kvOf(value, 7)), decode(kvOf(value, 7)));
});
