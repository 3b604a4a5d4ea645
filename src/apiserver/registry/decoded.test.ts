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
  const other = deepCopy(obj);
  (other.metadata as { labels: Record<string, string> }).labels.a = 'elsewhere';
  const otherBytes = encodeForStorage(other);
  assert.equal(d.decode('/k', kvOf(otherBytes, 20)).metadata.labels.a, 'elsewhere');
  const dated = { ...pod(), spec: { when: new Date(0) } };
  d.remember('/k', encodeForStorage(dated), dated);
  assert.equal(d.size, 0);
  assert.deepEqual(d.decode('/k', kvOf(encodeForStorage(dated), 21)).spec, { when: '1970-01-01T00:00:00.000Z' });
});

test('the map keeps only the most recent writes', () => {
  const d = new DecodedObjects(2);
  for (const k of ['/a', '/b', '/a', '/c']) d.remember(k, encodeForStorage(pod()), pod());
  // '/b' was the oldest write, so it was evicted; '/a' (rewritten) and '/c' stay.
  assert.equal(d.size, 2);
});
