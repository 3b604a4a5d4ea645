/**
 * `kscale load` against a cluster it did not start, as ClusterLoader2 runs
 * against a real one: a second `kscale server` with a hollow fleet, the
 * controller-manager and the scheduler, loaded once as its admin (the API
 * SLIs from the server's /metrics) and once as a ServiceAccount that may not
 * read /metrics (the SLIs measured client-side, and the report says so).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isNotFoundError, loadKubeconfig, RESOURCES, RESTClient, type KubeObject } from '../../src/client/index.js';
import type { LabReport } from '../../src/lab/index.js';
import { KSCALE, kubectlPath, startServer, tokenKubeconfig, type TestServer } from './harness.js';
import { startFleet, type FleetProcess } from './fixtures/cluster.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { startScheduler, type SchedulerProcess } from './scheduler_helpers.js';

/** Runs `kscale load <args>` to its end. */
function load(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, [KSCALE, 'load', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killer = setTimeout(() => p.kill('SIGKILL'), 150_000);
  return new Promise((resolve) =>
    p.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const SMALL = ['--pods-per-node', '2', '--pod-rate', '50', '--scrape-interval', '1s', '--settle', '1s'];

/** The exit code `kscale up` gives a report: 0 every SLO (not the targets) passed, 1 one failed, 3 not completed. */
const expectedExit = (r: LabReport): number =>
  r.result !== 'completed' ? 3 : r.slos.every((s) => s.kind !== 'slo' || s.pass) ? 0 : 1;

describe('kscale load against an existing cluster', () => {
  let server: TestServer;
  let fleet: FleetProcess;
  let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
  let scheduler: SchedulerProcess;
  let admin: RESTClient;
  const dirs: string[] = [];
  const reportDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'kscale-load-test-'));
    dirs.push(d);
    return d;
  };

  before(async () => {
    server = await startServer();
    fleet = startFleet(server.kubeconfig, ['--count', '3']);
    await fleet.registered;
    cm = await startControllerManagerProcess(server.kubeconfig, ['--secure-port', '-1']);
    scheduler = await startScheduler(server.kubeconfig);
    admin = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0, burst: 1 });
  });
  after(async () => {
    await scheduler?.stop();
    await cm?.stop();
    await fleet?.stop();
    await server?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Asserts the run loaded the cluster, measured pod startup, and left none of its namespaces behind. */
  async function assertLoaded(rep: LabReport, code: number | null): Promise<void> {
    assert.equal(rep.result, 'completed', rep.error);
    assert.equal(code, expectedExit(rep), "the exit code is the report's, as kscale up's");
    assert.equal(rep.config.nodes, 3);
    assert.deepEqual(
      rep.phases.map((p) => [p.name, p.completed]),
      [
        ['nodes', true],
        ['create', true],
        ['scale', true],
        ['rolling-update', true],
        ['delete', true],
      ],
    );
    assert.ok(rep.podStartup.pods >= 6, `pod startup measured over the lab's pods: ${rep.podStartup.pods}`);
    // Nothing was started: the lab's only process is itself, and it read no fleet.
    assert.deepEqual(
      rep.processes.map((p) => p.name),
      ['lab'],
    );
    assert.deepEqual(rep.fleets, []);
    await assert.rejects(admin.resource(RESOURCES.namespaces).get('lab-load-1').then(terminating), isGoneOrTerminating);
  }

  test("as the cluster admin, the API SLIs come from the server's /metrics", async () => {
    const dir = reportDir();
    const junit = join(dir, 'junit.xml');
    const r = await load([
      '--kubeconfig',
      server.kubeconfig,
      '--scenario',
      'load',
      '--nodes-from-cluster',
      ...SMALL,
      '--report',
      dir,
      '--junit',
      junit,
    ]);
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    await assertLoaded(rep, r.code);
    assert.equal(rep.api.source, 'server-metrics');
    assert.ok(rep.api.scrapes >= 2, `scraped /metrics ${rep.api.scrapes} times`);
    assert.ok(
      rep.notes.some((n) => /from the server's \/metrics/.test(n)),
      rep.notes.join('\n'),
    );
    const mutating = rep.slos.find((s) => s.name.startsWith('Mutating'))!;
    assert.notEqual(mutating.measured, null);
    assert.match(mutating.detail, /5-minute window/);
    assert.match(readFileSync(junit, 'utf8'), /<testcase[^>]*Mutating API call latency/);
    assert.match(r.stdout, /kscale lab: 3 nodes/);
  });

  test('as a ServiceAccount that may not read /metrics, the API SLIs are measured client-side and the report says so', async () => {
    const k = new Kubectl(kubectlPath(), server.kubeconfig);
    await k.ok(['create', 'serviceaccount', 'loader', '-n', 'default']);
    // Every resource, but no nonResourceURLs: /metrics is forbidden (system:monitoring is not granted).
    await admin.resource(RESOURCES.clusterroles).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'loader' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    } as KubeObject);
    await k.ok(['create', 'clusterrolebinding', 'loader', '--clusterrole=loader', '--serviceaccount=default:loader']);
    const token = (await k.ok(['create', 'token', 'loader', '-n', 'default'])).trim();
    const kubeconfig = tokenKubeconfig(server, token, 'loader');
    const dir = reportDir();
    const r = await load(['--kubeconfig', kubeconfig, '--nodes', '3', ...SMALL, '--report', dir]);
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as LabReport;
    await assertLoaded(rep, r.code);
    assert.equal(rep.api.source, 'client');
    assert.equal(rep.api.scrapes, 0);
    assert.ok(
      rep.notes.some((n) => /\/metrics could not be read \(HTTP 403\).*measured client-side/.test(n)),
      rep.notes.join('\n'),
    );
    assert.match(r.stdout, /note: .*measured client-side/);
    const mutating = rep.slos.find((s) => s.name.startsWith('Mutating'))!;
    assert.ok(mutating.measured !== null && mutating.measured > 0);
    assert.match(mutating.detail, /measured client-side/);
    const list = rep.slos.find((s) => s.name.includes('namespace-scoped list'))!;
    assert.match(list.detail, /LIST pods \(namespace\)/);
  });

  test('without --nodes or --nodes-from-cluster it is a one-line usage error (exit 2)', async () => {
    const r = await load(['--kubeconfig', server.kubeconfig]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim(), 'kscale load: give either --nodes <n> or --nodes-from-cluster');
  });
});

/** Resolves only when the namespace exists and is not being deleted. */
function terminating(ns: unknown): unknown {
  if ((ns as { status?: { phase?: string } }).status?.phase === 'Terminating') throw new Error('Terminating');
  return ns;
}

/** The lab's namespace is gone or on its way out. */
function isGoneOrTerminating(err: unknown): boolean {
  return isNotFoundError(err) || (err as Error).message === 'Terminating';
}
