import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy } from './index.js';

test('deepCopy copies a decoded object: equal, sharing nothing, key order kept', () => {
  const src = JSON.parse(
    '{"kind":"Pod","metadata":{"name":"p","labels":{"b":"2","a":"1"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]},"status":{}}',
  ) as Record<string, unknown>;
  const copy = deepCopy(src);
  assert.deepEqual(copy, src);
  assert.equal(JSON.stringify(copy), JSON.stringify(src));
  (copy.metadata as { labels: Record<string, string> }).labels.a = 'changed';
  (copy.spec as { containers: { ports: { containerPort: number }[] }[] }).containers[0].ports[0].containerPort = 81;
  assert.equal((src.metadata as { labels: Record<string, string> }).labels.a, '1');
  assert.equal(
    (src.spec as { containers: { ports: { containerPort: number }[] }[] }).containers[0].ports[0].containerPort,
    80,
  );
});

test('deepCopy keeps a "__proto__" key from JSON as a plain key, without changing the prototype', () => {
  const src = JSON.parse('{"a":{"__proto__":{"polluted":true}}}') as { a: Record<string, unknown> };
  const copy = deepCopy(src);
  assert.equal(Object.getPrototypeOf(copy.a), Object.prototype);
  assert.equal((copy.a as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(Object.keys(copy.a), ['__proto__']);
  assert.equal(JSON.stringify(copy), JSON.stringify(src));
});

test('deepCopy keeps undefined values, nulls and primitives, and copies non-plain objects by structuredClone', () => {
  const when = new Date(0);
  const src = { u: undefined, n: null, s: 'x', b: false, d: when, arr: [1, null, { x: 1 }] };
  const copy = deepCopy(src);
  assert.ok(Object.hasOwn(copy, 'u'));
  assert.deepEqual(copy, src);
  assert.ok(copy.d instanceof Date && copy.d !== when && copy.d.getTime() === 0);
  assert.notEqual(copy.arr[2], src.arr[2]);
  assert.equal(deepCopy(undefined), undefined);
  assert.equal(deepCopy(7), 7);
});
