import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeZoneState, getZoneKey, zoneEvictionRate } from './zone.js';

const conds = (ready: number, notReady: number, missing = 0) => [
  ...Array.from({ length: ready }, () => ({ type: 'Ready', status: 'True' })),
  ...Array.from({ length: notReady }, () => ({ type: 'Ready', status: 'Unknown' })),
  ...Array.from({ length: missing }, () => undefined),
];

test('zone states follow upstream ComputeZoneState', () => {
  assert.deepEqual(computeZoneState(conds(0, 3), 0.55), { unhealthy: 3, state: 'FullDisruption' });
  assert.deepEqual(
    computeZoneState(conds(0, 0, 1), 0.55),
    { unhealthy: 1, state: 'FullDisruption' },
    'a missing Ready condition is not ready',
  );
  assert.deepEqual(computeZoneState(conds(2, 3), 0.55), { unhealthy: 3, state: 'PartialDisruption' });
  assert.deepEqual(
    computeZoneState(conds(1, 2), 0.55),
    { unhealthy: 2, state: 'Normal' },
    'two unhealthy nodes never disrupt a zone',
  );
  assert.deepEqual(computeZoneState(conds(7, 3), 0.55), { unhealthy: 3, state: 'Normal' });
  assert.deepEqual(computeZoneState([], 0.55), { unhealthy: 0, state: 'Normal' });
});

test('zone rates: secondary only for large zones in partial disruption, normal for full disruption', () => {
  const o = { nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, largeClusterSizeThreshold: 50 };
  assert.equal(zoneEvictionRate('Normal', 10, o), 0.1);
  assert.equal(zoneEvictionRate('PartialDisruption', 50, o), 0);
  assert.equal(zoneEvictionRate('PartialDisruption', 51, o), 0.01);
  assert.equal(zoneEvictionRate('FullDisruption', 3, o), 0.1);
});

test('zone keys join region and zone labels, GA or beta', () => {
  assert.equal(
    getZoneKey({ metadata: { labels: { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'a' } } }),
    'r:\x00:a',
  );
  assert.equal(getZoneKey({ metadata: { labels: { 'failure-domain.beta.kubernetes.io/zone': 'b' } } }), ':\x00:b');
  assert.equal(getZoneKey({ metadata: {} }), '');
});
