import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../api/index.js';
import { applyJSONPatch, MAX_JSON_PATCH_OPERATIONS } from './json_patch.js';

const cm = (): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c' },
  data: { a: 'x'.repeat(1000) },
});

test('a JSON patch applies in order and leaves its input untouched', () => {
  const current = cm();
  const ops = [
    { op: 'add', path: '/data/b', value: 'y' },
    { op: 'copy', from: '/data/b', path: '/data/c' },
    { op: 'remove', path: '/data/a' },
  ];
  const out = applyJSONPatch(current, ops);
  assert.deepEqual(out.data, { b: 'y', c: 'y' });
  assert.equal((current.data as Record<string, string>).a.length, 1000);
  (ops[0] as { value: string }).value = 'changed';
  assert.equal((out.data as Record<string, string>).b, 'y', "the result does not share the patch's values");
});

test('more than 10,000 operations is 413, like upstream', () => {
  const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({
    op: 'test',
    path: '/kind',
    value: 'ConfigMap',
  }));
  assert.throws(
    () => applyJSONPatch(cm(), ops),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status.code === 413 &&
      /maximum operations in a JSON patch is 10000, got 10001/.test(e.status.message ?? ''),
  );
  assert.doesNotThrow(() => applyJSONPatch(cm(), ops.slice(1)));
});

test('copies that would grow the object past the limit are 422, counted across operations', () => {
  // Each copy of data.a adds 1,002 bytes (the value with its quotes): the third passes a 3,000-byte limit.
  const copy = (i: number) => ({ op: 'copy', from: '/data/a', path: `/data/k${i}` });
  assert.doesNotThrow(() => applyJSONPatch(cm(), [copy(1), copy(2)], 3000));
  assert.throws(
    () => applyJSONPatch(cm(), [copy(1), copy(2), copy(3)], 3000),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status.code === 422 &&
      /accumulated size increase of copy is 3006, exceeding the limit 3000/.test(e.status.message ?? ''),
  );
  // The exponential case: copying the whole data map into itself doubles it each time.
  const doubling = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/d${i}` }));
  assert.throws(
    () => applyJSONPatch(cm(), doubling),
    (e: unknown) => e instanceof StatusError && e.status.code === 422,
  );
});

test('a failed test operation is 422', () => {
  assert.throws(
    () => applyJSONPatch(cm(), [{ op: 'test', path: '/kind', value: 'Pod' }]),
    (e: unknown) => e instanceof StatusError && e.status.code === 422,
  );
});
