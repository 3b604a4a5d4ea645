import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownsMemory } from '../storage/testing/owns_memory.js';
import { decode, encodeForStorage, withResourceVersion } from './codec.js';

test('stored bytes carry no resourceVersion, and it is spliced in on the way out without re-encoding', () => {
  const bytes = encodeForStorage({
    spec: { a: 1 },
    metadata: { name: 'x', resourceVersion: '7' },
    apiVersion: 'v1',
    kind: 'Pod',
  });
  assert.ok(bytes.toString().startsWith('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"}'));
  // The bytes wait for their commit: they are not a slice of Node's shared pool.
  assert.ok(ownsMemory(bytes));
  const out = JSON.parse(withResourceVersion(bytes, 42).toString());
  assert.deepEqual(out, {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { resourceVersion: '42', name: 'x' },
    spec: { a: 1 },
  });
  const empty = JSON.parse(withResourceVersion(encodeForStorage({ kind: 'X', apiVersion: 'v1' }), 3).toString());
  assert.deepEqual(empty.metadata, { resourceVersion: '3' });
  const d = decode({ key: '/k', value: bytes, createRevision: 1, modRevision: 9 });
  assert.equal((d.metadata as { resourceVersion?: string }).resourceVersion, '9');
});
