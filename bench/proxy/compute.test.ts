/** The rendering targets: judged at 10,000 services on warm full and one-change renderings; the first is reported only. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMPUTE_TARGETS, computeResult } from './compute.js';

test('a slow first rendering at 10,000 services does not fail the targets', () => {
  assert.equal(computeResult({ n: 10_000, warmFull: 90, change: 20 }), 'PASS');
  assert.equal(computeResult({ n: 10_000, warmFull: 250, change: 20 }), 'FAIL');
  assert.equal(computeResult({ n: 10_000, warmFull: 90, change: 200 }), 'FAIL');
  assert.equal(computeResult({ n: 5_000, warmFull: 900, change: 900 }), '-');
  assert.match(COMPUTE_TARGETS, /first full \(cold\) rendering is reported only/);
});
