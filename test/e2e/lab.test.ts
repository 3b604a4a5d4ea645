/**
 * `kscale up` end to end, as a user runs it: a real supervisor starting the
 * real server, controller-manager, scheduler (when built) and fleet, a small
 * load scenario, report.json with every SLO entry and per-process figures,
 * and no process left behind; Ctrl-C in the middle of a run stops every
 * component and still writes the report; --keep-running leaves a cluster
 * kubectl can read until Ctrl-C.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import type { LabReport } from '../../src/lab/index.js';
import { KSCALE, kubectlPath } from './harness.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function reportDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kscale-lab-test-'));
  dirs.push(d);
  return d;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs `kscale <args>`; `onLine` sees each stderr line and may signal the process. */
function run(
  args: string[],
  onLine?: (line: string, pid: number) => void,
  killAfterMs = 110_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, [KSCALE, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  createInterface({ input: p.stderr! }).on('line', (l) => {
    stderr += `${l}\n`;
    onLine?.(l, p.pid!);
  });
  const killer = setTimeout(() => p.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    p.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const SMALL = [
  '--nodes',
  '8',
  '--pods-per-node',
  '10',
  '--pod-rate',
  '100',
  '--pod-startup-latency',
  '200',
  '--scrape-interval',
  '1s',
  '--settle',
  '1s',
];

describe('kscale up', () => {
  test('runs the load scenario, reports every SLO with its threshold, and leaves no process behind', async () => {
    const dir = reportDir();
    const junit = join(dir, 'junit.xml');
    const r = await run(['up', ...SMALL, '--report', dir, '--junit', junit]);
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    assert.equal(rep.result, 'completed');
    // The exit status gates on the SLOs: 0 only when every one passed, 1 otherwise.
    const failed = rep.slos.filter((s) => s.kind === 'slo' && !s.pass);
    assert.equal(r.code, failed.length === 0 ? 0 : 1, `${failed.map((s) => s.name).join(', ')}\n${r.stderr}`);
    // JUnit: one testcase per SLO, failures exactly the SLOs that failed.
    const xml = readFileSync(junit, 'utf8');
    const sloSuite = /<testsuite name="kscale SLOs" tests="(\d+)" failures="(\d+)" errors="0"/.exec(xml);
    assert.ok(sloSuite !== null, xml);
    assert.equal(Number(sloSuite[1]), 5);
    assert.equal(Number(sloSuite[2]), failed.length);
    for (const s of rep.slos) assert.ok(xml.includes(`name="${s.name}"`), `${s.name} missing from the JUnit XML`);
    assert.deepEqual(
      rep.phases.map((p) => p.name),
      ['nodes', 'create', 'scale', 'rolling-update', 'delete'],
    );
    assert.ok(rep.phases.every((p) => p.completed && p.durationS > 0));
    // The DaemonSet's and StatefulSets' pods are part of the 80.
    assert.equal(rep.phases[1]!.podsRequested, 80);
    // ClusterLoader2's object mix: every kind created, ready and deleted, each phase timed per kind.
    if (rep.config.mode.workloads === 'controllers') {
      const kinds = ['ConfigMap', 'CronJob', 'DaemonSet', 'Deployment', 'Job', 'PersistentVolumeClaim', 'Secret'];
      for (const kind of [...kinds, 'Service', 'StatefulSet']) {
        const o = rep.objects?.[kind];
        assert.ok(
          o !== undefined && o.created > 0 && o.deleted === o.created && o.peak > 0,
          `${kind} ${JSON.stringify(o)}`,
        );
        assert.ok(o.phaseS?.create !== undefined && o.phaseS.delete !== undefined, `${kind} ${JSON.stringify(o)}`);
      }
      // The rolling update replaces the DaemonSet's pods too, and the phase reports it per kind.
      const roll = rep.phases.find((p) => p.name === 'rolling-update')!;
      assert.equal(roll.objects?.DaemonSet?.changed, 1, JSON.stringify(roll.objects));
      assert.ok(roll.podsRequested >= 8, 'every DaemonSet pod is replaced');
      assert.ok(roll.objects?.Pod?.readyS !== undefined);
    }
    // Every SLO of scale-facts.md is an entry with a measured value, its threshold, and pass.
    const names = rep.slos.filter((s) => s.kind === 'slo').map((s) => s.name);
    assert.equal(names.length, 5);
    for (const s of rep.slos) {
      assert.equal(typeof s.threshold, 'number');
      assert.equal(typeof s.pass, 'boolean');
      assert.ok(s.measured !== null, `${s.name} not measured`);
      assert.equal(s.pass, s.comparison === '<=' ? s.measured <= s.threshold : s.measured >= s.threshold);
    }
    // Pod startup: every created pod ran, and the fixed simulated start is in the total but not in the control plane's share.
    assert.ok(rep.podStartup.pods >= 80);
    assert.equal(rep.podStartup.simulatedStartMs, 200);
    assert.ok(rep.podStartup.total.p50 >= 200);
    assert.ok(Math.abs(rep.podStartup.total.p50 - 200 - rep.podStartup.controlPlane.p50) < 1);
    const created = rep.podStartupByPhase.find((b) => b.phase === 'create');
    assert.ok(
      created !== undefined && created.pods >= 80 && created.total.p50 >= 200,
      JSON.stringify(rep.podStartupByPhase),
    );
    assert.ok(
      rep.podStartupByPhase.every((b) => b.phase !== 'nodes'),
      'no pod is created while nodes join',
    );
    // The breakdown by controller covers the phase's pods, each under a kind that makes pods (or the lab's own).
    assert.equal(
      created.byOwner.reduce((n, o) => n + o.pods, 0),
      created.pods,
      JSON.stringify(created.byOwner),
    );
    for (const o of created.byOwner)
      assert.ok(['ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job', 'none'].includes(o.owner), o.owner);
    // The fleet's own share, read from its control endpoint before it stopped.
    assert.equal(rep.fleets.length, 1, JSON.stringify(rep.fleets));
    const fleet = rep.fleets[0]!.stats!.podStart;
    assert.ok(fleet.statusPatch.count >= 80, `fleet recorded ${fleet.statusPatch.count} starts`);
    assert.ok(fleet.statusPatch.p50 > 0 && fleet.statusPatch.p99 >= fleet.statusPatch.p50);
    // Each fleet process is named by its slice of the node range (one process for 8 nodes: all of them).
    assert.match(r.stdout, /fleet hollow-node-\[0\.\.7\]: start lateness p50 \d+ p99 \d+; status PATCH/);
    assert.equal(rep.fleetTotal?.counters.registered, 8, JSON.stringify(rep.fleetTotal));
    assert.ok(
      rep.capacity !== undefined && rep.capacity.drivers.nodes === 8,
      'the report carries its capacity figures',
    );
    assert.ok((rep.capacity.figures['requests:pods POST'] ?? 0) > 0, JSON.stringify(rep.capacity.figures));
    // Settings that shape the result: raised client QPS, workload workers, storage sync, the mode the lab chose.
    assert.equal(rep.config.controllerManager.qps, 500);
    assert.equal(rep.config.controllerManager.workloadSyncs, 10);
    assert.equal(rep.config.server.storageSync, 'full');
    assert.ok(['controllers', 'pods'].includes(rep.config.mode.workloads));
    // Per-process CPU and peak memory, from /proc.
    const names2 = rep.processes.map((p) => p.name);
    for (const n of ['lab', 'server', 'controller-manager', 'nodes'])
      assert.ok(names2.includes(n), `${n} missing from ${names2.join(',')}`);
    for (const p of rep.processes) {
      assert.ok(p.peakRssMiB > 10, `${p.name} peak RSS ${p.peakRssMiB}`);
      assert.ok(p.totalCpuSeconds > 0, `${p.name} cpu`);
      if (p.name !== 'lab') assert.ok(!alive(p.pid), `${p.name} (pid ${p.pid}) still running`);
    }
    assert.ok(rep.api.latency.some((e) => e.verb === 'POST' && e.resource === 'pods'));
    assert.ok(rep.api.series.qps.some((q) => q > 0));
    assert.match(r.stdout, /Pod startup latency p99 .* (PASS|FAIL)/);
    assert.ok(existsSync(join(dir, 'report.html')));
    // Each component's output is kept beside the report, so a stall can be matched against its log lines.
    // Secure by default: only HTTPS, no plain-HTTP port.
    const serverLog = readFileSync(join(dir, 'logs', 'server.log'), 'utf8');
    assert.match(serverLog, /serving securely on https:\/\/127\.0\.0\.1:\d+/);
    assert.doesNotMatch(serverLog, /listening on http:/);
    assert.equal(rep.config.server.insecure, false);
    assert.match(
      readFileSync(join(dir, 'logs', 'controller-manager.log'), 'utf8'),
      /kscale controller-manager started/,
    );
    assert.ok(existsSync(join(dir, 'logs', 'nodes.log')));
  });

  test('the object mix: every kind is created, becomes ready and is deleted, and report.json counts each', async () => {
    const dir = reportDir();
    const scenario = join(dir, 'mix.yaml');
    // 5 nodes × 4 pods: a DaemonSet (5 of the 20 pods), a Deployment with its Service, ConfigMap and Secret, a
    // StatefulSet whose 2 pods get claims, a Job, and a CronJob (a suspended Job, no pods; the run does not wait
    // for its first Job).
    writeFileSync(
      scenario,
      `name: mix
podsPerNode: 4
workloads:
  - {kind: Deployment, name: web, replicas: 5, share: 0.5, service: true, configMap: true, secret: true}
  - {kind: StatefulSet, name: db, replicas: 2, share: 0.25, claims: true, configMap: true}
  - {kind: Job, name: batch, replicas: 5, share: 0.25, secret: true}
  - {kind: DaemonSet, name: agent, count: 1}
  - {kind: CronJob, name: tick, count: 1, schedule: '* * * * *'}
phases:
  - {type: create}
  - {type: delete}
`,
    );
    const r = await run(
      ['up', ...SMALL, '--nodes', '5', '--pods-per-node', '4', '--scenario', scenario, '--report', dir],
      undefined,
      170_000,
    );
    assert.equal(r.code, 0, r.stderr);
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    assert.equal(rep.result, 'completed', rep.error);
    assert.ok(rep.config.mode.workloads === 'controllers', 'the mix needs the controllers');
    assert.equal(rep.phases[1]!.podsRequested, 20, "the DaemonSet's pods are part of nodes × pods-per-node");
    // created: distinct objects seen; peak: the most at once; ready: the most ready at once; deleted: gone at the end.
    const want: Record<string, number> = {
      // 15 pods besides the DaemonSet's: web 8 in Deployments of 5 and 3, db 4 in sets of 2 (a claim each), batch
      // the 3 left in one Job.
      Deployment: 2,
      StatefulSet: 2,
      PersistentVolumeClaim: 4,
      Job: 1,
      DaemonSet: 1,
      CronJob: 1,
      Service: 2,
      ConfigMap: 2 + 2,
      Secret: 2 + 1,
    };
    assert.deepEqual(Object.keys(rep.objects ?? {}).sort(), Object.keys(want).sort());
    for (const [kind, n] of Object.entries(want)) {
      const { phaseS, ...counts } = rep.objects![kind]!;
      // A phase waits for a CronJob to exist, not for its first Job at the next minute: ready counts what was seen.
      const ready = kind === 'CronJob' ? Math.min(counts.ready, n) : n;
      assert.deepEqual(counts, { created: n, peak: n, ready, deleted: n }, kind);
      // Each phase's time to its target, per kind.
      assert.deepEqual(Object.keys(phaseS ?? {}).sort(), ['create', 'delete'], kind);
      assert.ok(
        Object.values(phaseS!).every((t) => t >= 0 && t < 170),
        `${kind} ${JSON.stringify(phaseS)}`,
      );
    }
    // The StatefulSets' 4 pods mount claims: upstream's pod startup SLI (stateless pods) leaves them out.
    assert.equal(rep.podStartup.statefulPods, 4, JSON.stringify(rep.podStartup));
    assert.equal(rep.podStartup.stateless.count, rep.podStartup.pods - 4);
    const sts = rep.podStartupByPhase.find((b) => b.phase === 'create')?.byOwner.find((o) => o.owner === 'StatefulSet');
    assert.equal(sts?.pods, 4, JSON.stringify(rep.podStartupByPhase));
    const create = rep.phases.find((p) => p.name === 'create')!;
    assert.deepEqual(create.objects?.StatefulSet, {
      changed: 2,
      want: 2,
      readyS: rep.objects!.StatefulSet!.phaseS!.create,
    });
  });

  test('Ctrl-C during the run stops every component, and the report says interrupted', async () => {
    const dir = reportDir();
    let sent = false;
    const r = await run(['up', ...SMALL, '--nodes', '5', '--pod-rate', '5', '--report', dir], (line, pid) => {
      if (!sent && /nodes Ready in/.test(line)) {
        sent = true;
        process.kill(pid, 'SIGINT');
      }
    });
    assert.ok(sent, r.stderr);
    assert.equal(r.code, 3, 'a run that could not complete exits 3');
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    assert.equal(rep.result, 'interrupted');
    assert.ok(rep.processes.length >= 4);
    for (const p of rep.processes)
      if (p.name !== 'lab') assert.ok(!alive(p.pid), `${p.name} (pid ${p.pid}) still running`);
  });

  test('--keep-running leaves a cluster kubectl can read, until Ctrl-C', async () => {
    const dir = reportDir();
    let nodes = '';
    const r = await run(
      ['up', ...SMALL, '--nodes', '3', '--scenario', 'nodes', '--hold', '1s', '--report', dir, '--keep-running'],
      (line, pid) => {
        if (/press Ctrl-C to stop it/.test(line)) {
          const k = spawnSync(kubectlPath(), ['--kubeconfig', join(dir, 'kubeconfig'), 'get', 'nodes', '-o', 'name'], {
            encoding: 'utf8',
          });
          nodes = k.stdout;
          process.kill(pid, 'SIGINT');
        }
      },
    );
    assert.equal(nodes.trim().split('\n').length, 3, nodes);
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    // Stopping a kept cluster after its report is not an interruption: the run completed, so the SLOs decide.
    assert.equal(rep.result, 'completed');
    assert.equal(r.code, rep.slos.every((s) => s.kind !== 'slo' || s.pass) ? 0 : 1, r.stderr);
    for (const p of rep.processes) if (p.name !== 'lab') assert.ok(!alive(p.pid), `${p.name} still running`);
  });
});
