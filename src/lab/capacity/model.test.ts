import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dominantCost, driversFor, predict, type CapacityCoefficients } from './model.js';
import { planTable } from './plan_table.js';

const COEFFICIENTS: CapacityCoefficients = {
  kind: 'kscale-capacity-coefficients',
  version: 1,
  fittedAt: '2026-12-05T00:00:00Z',
  fittedFrom: [],
  watchEventBytes: 1000,
  figures: {
    'requests:leases PUT': { group: 'requests', coefficients: { leaseRenewalsPerSec: 1 }, samples: 3 },
    'watch:events': { group: 'watch', coefficients: { const: 10, podsPerSec: 4 }, samples: 3 },
    'cpu:server': {
      group: 'cpu',
      coefficients: { const: 0.1, leaseRenewalsPerSec: 0.001, podsPerSec: 0.002 },
      samples: 3,
    },
    'cpu:scheduler': { group: 'cpu', coefficients: { podsPerSec: 0.004 }, samples: 3 },
    'memory:server': { group: 'memory', coefficients: { const: 100, pods: 0.01 }, samples: 3 },
  },
};

test('drivers follow the kubelet: a lease renewed every quarter of its duration, status every period', () => {
  const d = driversFor({
    nodes: 10_000,
    podsPerNode: 15,
    podRate: 300,
    leaseDurationS: 40,
    nodeStatusUpdateFrequencyS: 10,
  });
  assert.deepEqual(d, {
    const: 1,
    nodes: 10_000,
    pods: 150_000,
    leaseRenewalsPerSec: 1_000,
    nodeStatusPerSec: 1_000,
    podsPerSec: 300,
  });
});

test('each figure is the sum of coefficient × driver, and watch bytes are events × mean event size', () => {
  const p = predict(
    COEFFICIENTS,
    driversFor({ nodes: 2_000, podsPerNode: 30, podRate: 100, leaseDurationS: 40, nodeStatusUpdateFrequencyS: 10 }),
  );
  const by = new Map(p.map((x) => [x.id, x]));
  assert.equal(by.get('requests:leases PUT')!.value, 200);
  assert.equal(by.get('watch:events')!.value, 410);
  assert.equal(by.get('watch:bytes')!.value, 410_000);
  assert.ok(Math.abs(by.get('cpu:server')!.value - 0.5) < 1e-12);
  assert.deepEqual(by.get('cpu:server')!.terms, { const: 0.1, leaseRenewalsPerSec: 0.2, podsPerSec: 0.2 });
  assert.equal(by.get('memory:server')!.value, 700);
  const d = dominantCost(p)!;
  assert.equal(d.component, 'server');
  assert.ok(d.driver === 'leaseRenewalsPerSec' || d.driver === 'podsPerSec');
  assert.ok(Math.abs(d.share - 0.4) < 1e-12);
});

test('the table lists every group and names the dominant cost', () => {
  const input = { nodes: 10_000, podsPerNode: 15, podRate: 20, leaseDurationS: 40, nodeStatusUpdateFrequencyS: 10 };
  const text = planTable(input, predict(COEFFICIENTS, driversFor(input))).join('\n');
  assert.match(text, /10000 nodes × 15 pods \(150000 pods\), 20 pods\/s/);
  assert.match(text, /leases PUT\s+1000/);
  assert.match(text, /CPU-seconds per second by component/);
  assert.match(text, /dominant cost: server CPU, 1\.1 CPU-s\/s, 88% of it from leaseRenewalsPerSec/);
});
