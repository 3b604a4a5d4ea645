/**
 * `kscale plan` and `kscale lab calibrate --from-reports` as processes: bad
 * input is one line on stderr and exit 2; calibrate fits a coefficients file
 * from report.json files and plan reads it back; plan runs on the shipped
 * coefficients.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { driversFor } from '../../src/lab/capacity/index.js';
import { KSCALE } from './harness.js';

function kscale(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [KSCALE, ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('kscale plan and kscale lab calibrate', { timeout: 90_000 }, () => {
  test('bad input is one line on stderr and exit 2', () => {
    for (const args of [
      ['plan', '--pods-per-node', '30'],
      ['plan', '--nodes', 'many', '--pods-per-node', '30'],
      ['plan', '--nodes', '100', '--pods-per-node', '-1'],
      ['plan', '--nodes', '100', '--pods-per-node', '3', '--pod-rate', 'fast'],
      ['plan', '--nodes', '100', '--pods-per-node', '3', '--lease-duration', 'soon'],
      ['plan', '--nodes', '100', '--pods-per-node', '3', '--coefficients', '/nonexistent/c.json'],
      ['lab', 'calibrate', '--from-reports', '/nonexistent/reports'],
      ['lab', 'calibrate', '--sizes', '20'],
    ]) {
      const r = kscale(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^kscale (plan|lab calibrate): /);
    }
  });

  test('plan on the shipped coefficients prints every group and the dominant cost', () => {
    const r = kscale('plan', '--nodes', '5000', '--pods-per-node', '30', '--pod-rate', '100');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^kscale plan: 5000 nodes × 30 pods \(150000 pods\), 100 pods\/s, lease 40s/);
    for (const g of ['API requests/s by resource and verb', 'storage', 'watch', 'CPU-seconds per second', 'memory'])
      assert.ok(r.stdout.includes(g), `${g} missing:\n${r.stdout}`);
    assert.match(r.stdout, /leases PUT/);
    assert.match(r.stdout, /^dominant cost: \S+ CPU, [\d.]+ CPU-s\/s, \d+% of it from \w+$/m);
  });

  test('calibrate fits report.json files and plan predicts from what it wrote', () => {
    const root = mkdtempSync(join(tmpdir(), 'plan-cli-'));
    for (const nodes of [100, 300]) {
      const d = driversFor({ nodes, podsPerNode: 10, podRate: 20, leaseDurationS: 40, nodeStatusUpdateFrequencyS: 10 });
      mkdirSync(join(root, `nodes-${nodes}`));
      writeFileSync(
        join(root, `nodes-${nodes}`, 'report.json'),
        JSON.stringify({
          kind: 'kscale-lab-report',
          capacity: { durationS: 60, drivers: d, figures: { 'requests:leases PUT': d.leaseRenewalsPerSec } },
        }),
      );
    }
    const out = join(root, 'coefficients.json');
    const c = kscale('lab', 'calibrate', '--from-reports', root, '--out', out);
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stdout, /1 figures fitted from 2 reports/);
    const fitted = JSON.parse(readFileSync(out, 'utf8')) as { figures: Record<string, { samples: number }> };
    assert.equal(fitted.figures['requests:leases PUT']!.samples, 2);
    const p = kscale('plan', '--nodes', '2000', '--pods-per-node', '10', '--coefficients', out, '--json');
    assert.equal(p.status, 0, p.stderr);
    const plan = JSON.parse(p.stdout) as { predictions: { id: string; value: number }[] };
    const leases = plan.predictions.find((x) => x.id === 'requests:leases PUT')!.value;
    assert.ok(Math.abs(leases - 200) < 0.5, `2,000 nodes renew 200 leases/s, predicted ${leases}`);
  });
});
