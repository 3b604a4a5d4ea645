/**
 * `kubectl logs` for hollow pods, end to end: a real `kscale server`, the
 * real scheduler and a 3-node fleet serving its kubelet API on the nodes'
 * loopback InternalIPs (--port 0). kubectl logs, --tail, --timestamps, -f,
 * --previous and -c go through pods/log to the fleet; upstream's errors for
 * bad containers, options, unscheduled and not-yet-started pods; kubectl
 * exec gets a clear 400.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RESTClient, RESOURCES, loadKubeconfig, type KubeObject } from '../../src/client/index.js';
import { KSCALE, kubectlPath, secureGet, startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';
import { startPodPlacement } from './fixtures/workloads.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON here
type Obj = KubeObject & Record<string, any>;

describe('kubectl logs for hollow pods', { timeout: 120_000 }, () => {
  let server: TestServer;
  let fleet: FleetProcess;
  let placement: { stop(): Promise<void> };
  let rest: RESTClient;
  const kubectl = (...args: string[]) =>
    spawnSync(kubectlPath(), ['--kubeconfig', server.kubeconfig, ...args], { encoding: 'utf8', timeout: 20_000 });
  const logURL = (pod: string, query = ''): string =>
    `${server.url}/api/v1/namespaces/default/pods/${pod}/log${query === '' ? '' : `?${query}`}`;
  const pods = () => rest.resource<Obj>(RESOURCES.pods);
  const pod = (name: string, containers: string[], spec: Record<string, unknown> = {}): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: containers.map((c) => ({ name: c, image: `registry.k8s.io/${c}:1.0` })), ...spec },
  });
  const running = (name: string) =>
    waitFor(`${name} Running`, async () => {
      const p = await pods().get(name, { namespace: 'default' });
      return p.status?.phase === 'Running' ? p : undefined;
    });

  before(async () => {
    server = await startServer([...INSECURE_PORT]);
    rest = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
    placement = await startPodPlacement(server.kubeconfig);
    fleet = startFleet(server.kubeconfig, ['--count', '3', '--port', '0', '--name-prefix', 'logs-node-']);
    await fleet.registered;
    await pods().create(pod('web', ['app']), { namespace: 'default' });
    await pods().create(pod('multi', ['a', 'b']), { namespace: 'default' });
    await running('web');
    await running('multi');
  });

  after(async () => {
    await fleet?.stop();
    await placement?.stop();
    rest?.close();
    await server?.stop();
  });

  test('each node reports its loopback InternalIP and the fleet kubelet port', async () => {
    const n = await rest.resource<Obj>(RESOURCES.nodes).get('logs-node-1');
    const ip = (n.status.addresses as Obj[]).find((a) => a.type === 'InternalIP')?.address as string;
    assert.equal(ip, '127.1.0.2');
    assert.ok((n.status.daemonEndpoints.kubeletEndpoint.Port as number) > 0);
  });

  test('kubectl logs prints the container start and readiness; --tail and --timestamps shape it', () => {
    const r = kubectl('logs', 'web');
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^starting container app of pod web \(image registry\.k8s\.io\/app:1\.0\)\ncontainer app is ready\n/,
    );
    const t = kubectl('logs', 'web', '--tail=1', '--timestamps');
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \S.*\n$/);
    const c = kubectl('logs', 'multi', '-c', 'b', '--limit-bytes=8');
    assert.equal(c.stdout, 'starting');
  });

  test('kubectl logs -f keeps streaming until it is stopped', async () => {
    const p = spawn(kubectlPath(), ['--kubeconfig', server.kubeconfig, 'logs', '-f', 'web'], { stdio: 'pipe' });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('the followed log', async () => (out.includes('container app is ready') ? true : undefined), 10_000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(p.exitCode, null, 'kubectl logs -f ended on its own');
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
  });

  test('--previous, a missing container and a multi-container pod without -c get upstream errors', async () => {
    const prev = kubectl('logs', 'web', '--previous');
    assert.notEqual(prev.status, 0);
    assert.match(prev.stderr, /previous terminated container "app" in pod "web" not found/);
    const bad = kubectl('logs', 'web', '-c', 'nope');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /container nope is not valid for pod web/);
    const res = await fetch(logURL('multi'));
    assert.equal(res.status, 400);
    const st = (await res.json()) as Obj;
    assert.equal(st.reason, 'BadRequest');
    assert.equal(st.message, 'a container name must be specified for pod multi, choose one of: [a b]');
  });

  test('bad options are 422 or 400 as upstream', async () => {
    const neg = await fetch(logURL('web', 'tailLines=-1'));
    assert.equal(neg.status, 422);
    assert.match(
      ((await neg.json()) as Obj).message as string,
      /PodLogOptions "web" is invalid: tailLines: Invalid value: -1/,
    );
    const zero = await fetch(logURL('web', 'sinceSeconds=0'));
    assert.equal(zero.status, 422);
    assert.match(
      ((await zero.json()) as Obj).message as string,
      /sinceSeconds: Invalid value: 0: must be greater than 0/,
    );
    assert.equal((await fetch(logURL('web', 'tailLines=x'))).status, 400);
  });

  test('an unscheduled pod has an empty log (200); a bound pod not yet started is waiting to start (400)', async () => {
    await pods().create(pod('pending', ['app'], { nodeSelector: { nowhere: 'true' } }), { namespace: 'default' });
    const res = await fetch(logURL('pending'));
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '');
    const kill = spawnSync(
      process.execPath,
      [KSCALE, 'nodes', 'kill', '--names', 'logs-node-2', '--kubeconfig', server.kubeconfig],
      { encoding: 'utf8', timeout: 15_000 },
    );
    assert.equal(kill.status, 0, kill.stderr);
    await pods().create(pod('stuck', ['app'], { nodeName: 'logs-node-2' }), { namespace: 'default' });
    const r = kubectl('logs', 'stuck');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /container "app" in pod "stuck" is waiting to start: ContainerCreating/);
  });

  test('kubectl exec says hollow pods run nothing', () => {
    const r = kubectl('exec', 'web', '--', 'ls');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /hollow pod, whose containers are simulated and run no processes/);
  });
});

describe('pods/log on the secure port', { timeout: 60_000 }, () => {
  let server: TestServer;
  const admin = (...args: string[]) =>
    spawnSync(kubectlPath(), ['--kubeconfig', server.kubeconfig, ...args], { encoding: 'utf8', timeout: 20_000 });

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'reader-token,reader,3\n');
    server = await startServer([...INSECURE_PORT, '--secure-port', '0', '--token-auth-file', file], dir);
    const r = admin('run', 'pending', '--image=app:1', '--overrides={"spec":{"nodeSelector":{"nowhere":"true"}}}');
    assert.equal(r.status, 0, r.stderr);
  });

  after(async () => {
    await server?.stop();
  });

  test('reading a log needs get on pods/log, not just on pods', async () => {
    const path = '/api/v1/namespaces/default/pods/pending/log';
    assert.equal((await secureGet(server, path, 'reader-token')).code, 403);
    assert.equal(admin('create', 'role', 'pods-only', '--verb=get', '--resource=pods').status, 0);
    assert.equal(admin('create', 'rolebinding', 'pods-only', '--role=pods-only', '--user=reader').status, 0);
    await waitFor('pods readable', async () =>
      (await secureGet(server, '/api/v1/namespaces/default/pods/pending', 'reader-token')).code === 200
        ? true
        : undefined,
    );
    assert.equal((await secureGet(server, path, 'reader-token')).code, 403);
    assert.equal(admin('create', 'role', 'logs', '--verb=get', '--resource=pods/log').status, 0);
    assert.equal(admin('create', 'rolebinding', 'logs', '--role=logs', '--user=reader').status, 0);
    await waitFor('the log readable', async () =>
      (await secureGet(server, path, 'reader-token')).code === 200 ? true : undefined,
    );
  });
});
