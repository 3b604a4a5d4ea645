import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fitCoefficients, nnls } from './fit.js';
import { measurementsFrom, reportFiles } from './coefficients_file.js';
import { driversFor, predict, type Drivers } from './model.js';

/** Known costs the synthetic runs are made from. */
const TRUTH = {
  'requests:leases PUT': { leaseRenewalsPerSec: 1 },
  'requests:pods/status PATCH': { podsPerSec: 2, nodeStatusPerSec: 0 },
  'storage:writes': { const: 3, leaseRenewalsPerSec: 1, nodeStatusPerSec: 0.05, podsPerSec: 6 },
  'cpu:server': { const: 0.02, leaseRenewalsPerSec: 0.0004, nodeStatusPerSec: 0.0001, podsPerSec: 0.003, pods: 2e-6 },
  'memory:server': { const: 120, nodes: 0.05, pods: 0.004 },
} as const;

function figure(coefficients: Partial<Drivers>, d: Drivers): number {
  return Object.entries(coefficients).reduce((a, [k, c]) => a + c * d[k as keyof Drivers], 0);
}

/** Eight runs whose drivers vary independently (sizes, pods per node, pod rates, lease and status periods). */
function syntheticReports(): string {
  const root = mkdtempSync(join(tmpdir(), 'calibrate-'));
  const shapes = [
    [100, 10, 20, 40, 10],
    [200, 10, 50, 40, 10],
    [400, 30, 50, 20, 10],
    [300, 5, 100, 40, 5],
    [800, 20, 30, 60, 20],
    [150, 40, 80, 10, 10],
    [600, 15, 10, 40, 30],
    [1000, 10, 120, 40, 10],
  ];
  for (const [nodes, podsPerNode, podRate, lease, status] of shapes) {
    const d = driversFor({
      nodes: nodes!,
      podsPerNode: podsPerNode!,
      podRate: podRate!,
      leaseDurationS: lease!,
      nodeStatusUpdateFrequencyS: status!,
    });
    const figures = Object.fromEntries(Object.entries(TRUTH).map(([id, c]) => [id, figure(c, d)]));
    const dir = join(root, `nodes-${nodes}`);
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'report.json'),
      JSON.stringify({ kind: 'kscale-lab-report', capacity: { durationS: 60, drivers: d, figures } }),
    );
  }
  return root;
}

test('nnls solves an exact system and keeps coefficients non-negative', () => {
  const X = [
    [1, 0],
    [0, 1],
    [1, 1],
  ];
  const b = nnls(X, [2, 3, 5]);
  assert.ok(Math.abs(b[0]! - 2) < 1e-6 && Math.abs(b[1]! - 3) < 1e-6, String(b));
  // The unconstrained answer would be negative for the second column: it is held at zero.
  const c = nnls(X, [2, -1, 1]);
  assert.equal(c[1], 0);
  assert.ok(c[0]! > 0);
});

test('fitting synthetic reports recovers the coefficients they were made from', () => {
  const files = reportFiles([syntheticReports()]);
  assert.equal(files.length, 8);
  const fitted = fitCoefficients(measurementsFrom(files), files, 4096);
  for (const [id, truth] of Object.entries(TRUTH)) {
    const got = fitted.figures[id];
    assert.ok(got !== undefined, id);
    assert.equal(got.samples, 8);
    for (const [k, v] of Object.entries(truth)) {
      const c = got.coefficients[k as keyof Drivers] ?? 0;
      assert.ok(Math.abs(c - v) <= 1e-3 * Math.max(Math.abs(v), 1e-3), `${id} ${k}: want ${v}, got ${c}`);
    }
  }
});

test('a fit from a size sweep still predicts a larger size of the same settings', () => {
  // Only the node count varies, so nodes, leases and status move together: the split among them is
  // arbitrary, yet the prediction along the sweep must hold.
  const root = mkdtempSync(join(tmpdir(), 'calibrate-sweep-'));
  for (const nodes of [100, 200, 400]) {
    const d = driversFor({ nodes, podsPerNode: 10, podRate: 50, leaseDurationS: 40, nodeStatusUpdateFrequencyS: 10 });
    mkdirSync(join(root, String(nodes)));
    writeFileSync(
      join(root, String(nodes), 'report.json'),
      JSON.stringify({
        kind: 'kscale-lab-report',
        capacity: { durationS: 60, drivers: d, figures: { 'cpu:server': figure(TRUTH['cpu:server'], d) } },
      }),
    );
  }
  const files = reportFiles([root]);
  const fitted = fitCoefficients(measurementsFrom(files), files, 4096);
  const big = driversFor({
    nodes: 5000,
    podsPerNode: 10,
    podRate: 50,
    leaseDurationS: 40,
    nodeStatusUpdateFrequencyS: 10,
  });
  const p = predict(fitted, big).find((x) => x.id === 'cpu:server')!;
  const want = figure(TRUTH['cpu:server'], big);
  assert.ok(Math.abs(p.value - want) / want < 0.01, `want ${want}, got ${p.value}`);
});

test('a report without capacity figures is refused by name', () => {
  const root = mkdtempSync(join(tmpdir(), 'calibrate-old-'));
  writeFileSync(join(root, 'report.json'), JSON.stringify({ kind: 'kscale-lab-report' }));
  assert.throws(() => measurementsFrom(reportFiles([root])), /report\.json: the report has no capacity figures/);
});
