/**
 * `kscale up --prometheus` end to end, small: Debian's prometheus scrapes
 * every component the lab started over HTTPS with the lab's metrics
 * identity's client certificate (the API server, and the secure ports of the
 * controller-manager, the scheduler and the fleet, which answer 403 to a
 * caller they cannot authorize), every target is up at the end, and
 * report.json holds ClusterLoader2's PromQL API SLIs beside the lab's own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KSCALE } from './harness.js';
import type { PromSloReport } from '../../src/lab/prom_slo.js';

const dir = mkdtempSync(join(tmpdir(), 'kscale-lab-prom-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a tiny `kscale up --prometheus` with `more` flags; returns report.json's prometheus section. */
async function upWithPrometheus(reportDir: string, more: string[] = []): Promise<PromSloReport> {
  const p = spawn(
    process.execPath,
    [
      KSCALE,
      'up',
      '--nodes',
      '4',
      '--pods-per-node',
      '5',
      // 5 pods/s spreads the 20 pods' calls over several 1 s scrapes: increase() cannot count a series born and
      // finished between two of Prometheus's scrapes, so a burst would leave PromQL blind to most SLIs.
      '--pod-rate',
      '5',
      '--pod-startup-latency',
      '200',
      '--scrape-interval',
      '1s',
      '--settle',
      '2s',
      '--hold',
      '3s',
      '--prometheus',
      '--report',
      reportDir,
      ...more,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => p.once('close', r));
  // 0: every SLO passed; 1: an SLO failed on this busy machine, still a complete report.
  assert.ok(code === 0 || code === 1, `kscale up exited with ${code}: ${stderr.slice(-3000)}`);
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as { prometheus?: PromSloReport };
  assert.ok(report.prometheus !== undefined, 'report.json has the prometheus section');
  return report.prometheus;
}

test('kscale up --prometheus scrapes every component with a client certificate and reports the PromQL SLIs', async () => {
  const prom = await upWithPrometheus(join(dir, 'one'));
  assert.deepEqual(
    [...new Set((prom.targets ?? []).map((t) => t.job))],
    ['apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet'],
  );
  for (const t of prom.targets ?? []) assert.ok(t.up, `${t.job} ${t.instance} answered Prometheus's last scrape`);
  assert.match(prom.query, /apiserver_request_sli_duration_seconds_bucket/);
  assert.ok(prom.rows.length > 0, 'SLIs side by side');
  const steady = prom.rows.filter((r) => (r.visible ?? 0) >= 10);
  assert.ok(steady.length > 0, 'some SLIs had calls over several scrapes');
  assert.deepEqual(
    steady.filter((r) => r.promql === null).map((r) => `${r.verb} ${r.resource}/${r.subresource} (${r.visible})`),
    [],
    'PromQL answered for every SLI with 10 calls it could count',
  );
});

test('with two leader-elected schedulers (an HA run, the PKI shared from the first server data dir), both are scraped and up', async () => {
  const prom = await upWithPrometheus(join(dir, 'ha'), ['--schedulers', '2']);
  const targets = prom.targets ?? [];
  assert.equal(targets.filter((t) => t.job === 'kube-scheduler').length, 2);
  for (const t of targets) assert.ok(t.up, `${t.job} ${t.instance} answered Prometheus's last scrape`);
});
