import assert from 'node:assert/strict';
import { test } from 'node:test';
import { swapAPIVersion } from './version_storage.js';

test('swapAPIVersion rewrites the head apiVersion only, and leaves other bytes alone', () => {
  const stored = Buffer.from(
    '{"kind":"W","apiVersion":"example.com/v1","metadata":{},"spec":{"ref":"example.com/v1"}}',
  );
  assert.equal(
    swapAPIVersion(stored, 'example.com/v1', 'example.com/v1beta1').toString(),
    '{"kind":"W","apiVersion":"example.com/v1beta1","metadata":{},"spec":{"ref":"example.com/v1"}}',
  );
  assert.equal(swapAPIVersion(stored, 'example.com/v2', 'example.com/v1beta1'), stored);
});
