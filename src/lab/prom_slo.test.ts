import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agreeWithin } from './prom_slo.js';

const LE = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, Infinity];

test('two p99s agree within 5%, or within one histogram bucket, and not further apart', () => {
  assert.ok(agreeWithin(0.2, 0.205, LE), 'within 5%');
  assert.ok(agreeWithin(0.03, 0.07, LE), 'adjacent buckets');
  assert.ok(!agreeWithin(0.007, 0.2, LE), 'three buckets apart');
});
