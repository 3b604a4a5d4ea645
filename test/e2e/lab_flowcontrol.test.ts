/**
 * The lab's API Priority and Fairness figures (issue 25): the per-priority-level
 * counts computed from a real server's /metrics agree with what its clients
 * saw, and the throttling experiment on a tiny cluster shows the lesson: under
 * APF the noisy neighbour is queued or refused in workload-low while no Lease
 * write is refused, and with max-in-flight alone the flood gets 429s from the
 * shared mutating slots.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isTooManyRequests, loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import { snapshotOf } from '../../src/lab/api_metrics.js';
import { priorityLevels, schemaShare } from '../../src/lab/flowcontrol_report.js';
import type { LabReport } from '../../src/lab/index.js';
import { INSECURE_PORT, KSCALE, startServer, tokenKubeconfig } from './harness.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const metrics = async (url: string): Promise<string> => (await fetch(`${url}/metrics`)).text();

describe('flow-control figures from a real server', () => {
  test('per priority level, dispatched and rejected match what the clients saw, and Lease writes stay in node-high', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    dirs.push(dir);
    const tokens = join(dir, 'tokens.csv');
    // An agent classified as a ServiceAccount (workload-low) and a kubelet-like user (node-high); both may do anything under RBAC.
    writeFileSync(
      tokens,
      'agent-token,system:serviceaccount:noisy:agent,1,"system:serviceaccounts,system:serviceaccounts:noisy,kubeadm:cluster-admins"\n' +
        'node-token,kscale-lab-fleet,2,"system:nodes,kubeadm:cluster-admins"\n',
    );
    const server = await startServer(
      [
        // The metrics scrape goes over the plain port (system:masters, exempt); the clients over TLS.
        ...INSECURE_PORT,
        '--token-auth-file',
        tokens,
        '--max-requests-inflight',
        '4',
        '--max-mutating-requests-inflight',
        '2',
      ],
      dir,
    );
    try {
      const client = (token: string): RESTClient =>
        new RESTClient(
          { ...loadKubeconfig({ path: tokenKubeconfig(server, token, token) }), qps: 0, burst: 1 },
          { maxRetries: 0 },
        );
      const agent = client('agent-token');
      const node = client('node-token');
      const before = snapshotOf(await metrics(server.url), 0);
      let ok = 0;
      let refused = 0;
      // Writes wait for storage, so they hold their seats across turns of the event loop, as a flood's would.
      await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          agent
            .resource(RESOURCES.configmaps)
            .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `flood-${i}`, namespace: 'default' } })
            .then(
              () => void ok++,
              (e: unknown) => {
                if (!isTooManyRequests(e)) throw e;
                refused++;
              },
            ),
        ),
      );
      const leases = node.resource(RESOURCES.leases);
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'n1', namespace: 'kube-node-lease' },
      };
      await leases.create(lease);
      for (let i = 0; i < 4; i++)
        await leases.patch(
          'n1',
          'merge',
          { spec: { renewTime: new Date().toISOString().replace('Z', '000Z') } },
          {
            namespace: 'kube-node-lease',
          },
        );
      const later = snapshotOf(await metrics(server.url), 1);
      const levels = new Map(priorityLevels([before, later]).map((l) => [l.priorityLevel, l]));
      const low = levels.get('workload-low');
      assert.ok(low !== undefined, `no workload-low level in ${JSON.stringify([...levels.keys()])}`);
      assert.equal(low.dispatched, ok);
      assert.equal(low.rejected, refused);
      assert.equal(ok + refused, 80);
      // 80 writes at once on a level of a few seats: some waited in its queues (or found them full).
      assert.ok(low.queued > 0 || low.rejected > 0, JSON.stringify(low));
      assert.ok(low.nominalSeats > 0);
      const high = levels.get('node-high');
      assert.ok(high !== undefined);
      assert.equal(high.dispatched, 5);
      assert.equal(high.rejected, 0);
      assert.equal(later.leaseTooManyRequests - before.leaseTooManyRequests, 0);
      const share = schemaShare([before, later], 'service-accounts');
      const all = [...levels.values()].reduce((a, l) => a + l.dispatched, 0);
      assert.ok(share !== null && Math.abs(share - ok / all) < 1e-9 && share > 0.9, `${share} of ${all}`);
    } finally {
      await server.stop();
    }
  });
});

/** Runs `kscale <args>` to the end. */
function kscale(args: string[]): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, [KSCALE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const killer = setTimeout(() => p.kill('SIGKILL'), 280_000);
  return new Promise((resolve) =>
    p.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, out });
    }),
  );
}

describe('kscale lab experiment throttling', () => {
  test('with APF the noisy neighbour is queued or refused and no Lease write is; with max-in-flight it takes 429s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-lab-test-'));
    dirs.push(dir);
    const r = await kscale([
      'lab',
      'experiment',
      'throttling',
      '--nodes',
      '3',
      '--pods-per-node',
      '2',
      '--pod-rate',
      '20',
      '--pod-startup-ms',
      '100',
      '--scrape-interval',
      '1s',
      '--settle',
      '1s',
      '--hold',
      '12s',
      '--max-requests-inflight',
      '20',
      '--max-mutating-requests-inflight',
      '10',
      '--noisy-neighbour',
      '5,40',
      '--report',
      dir,
    ]);
    const comparison = JSON.parse(readFileSync(join(dir, 'comparison.json'), 'utf8')) as {
      variants: { label: string; dir: string; result: string }[];
    };
    const [apf, mif] = comparison.variants.map(
      (v) => JSON.parse(readFileSync(join(v.dir, 'report.json'), 'utf8')) as LabReport,
    );
    assert.ok(apf !== undefined && mif !== undefined, r.out);
    assert.equal(apf.result, 'completed', r.out.slice(-3000));

    const fc = apf.flowControl!;
    assert.equal(fc.enabled, true);
    const level = (name: string) => fc.priorityLevels.find((l) => l.priorityLevel === name);
    const low = level('workload-low');
    assert.ok(low !== undefined && low.queued + low.rejected > 0, JSON.stringify(fc.priorityLevels));
    const high = level('node-high');
    assert.ok(high !== undefined && high.dispatched > 0 && high.rejected === 0, JSON.stringify(high));
    assert.equal(fc.heartbeat.leaseTooManyRequests, 0);
    assert.ok(fc.heartbeat.leaseWrites > 0);
    assert.equal(fc.heartbeat.nodesTurnedNotReady, 0);
    assert.ok(fc.noisyNeighbour !== null && fc.noisyNeighbour.writes.ok > 0, JSON.stringify(fc.noisyNeighbour));
    assert.equal(fc.noisyNeighbour.writes.otherErrors, 0, fc.noisyNeighbour.writes.lastError);
    const targets = apf.slos.filter((s) => s.kind === 'target' && s.name.includes('noisy neighbour'));
    assert.deepEqual(
      targets.map((t) => t.pass),
      [true, true],
      JSON.stringify(targets),
    );

    const off = mif.flowControl!;
    assert.equal(off.enabled, false);
    assert.ok(off.noisyNeighbour !== null, r.out.slice(-2000));
    assert.ok(off.noisyNeighbour.writes.tooManyRequests > 0, JSON.stringify(off.noisyNeighbour.writes));
    assert.match(readFileSync(join(dir, 'comparison.html'), 'utf8'), /Lease requests answered 429/);
    const apfHtml = readFileSync(join(apf.config.reportDir, 'report.html'), 'utf8');
    assert.match(apfHtml, /API Priority and Fairness/);
    // The lesson, read from the run's own figures, next to them: here the targets pass, so APF shows it.
    assert.match(
      apfHtml,
      /<b>Lesson\.<\/b> API Priority and Fairness gives each kind of client its own share.*Shown here: /,
    );
    assert.match(apfHtml, /Seats are not CPU: the server used \d+\.\d\d cores/);
    assert.match(
      readFileSync(join(mif.config.reportDir, 'report.html'), 'utf8'),
      /<b>Lesson\.<\/b> With max-in-flight alone/,
    );
  });
});
