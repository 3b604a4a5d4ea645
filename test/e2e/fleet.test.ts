/**
 * The hollow-node fleet against a real `kscale server`, as separate
 * processes: `kscale nodes --count 200` with short periods (1 s status, a
 * 4 s lease renewed every second) registers Ready nodes and keeps their
 * leases fresh; bound pods run, deleted pods go, a Job's pod succeeds;
 * `kscale nodes kill|revive` stop and resume lease renewals; a second fleet
 * with --pod-watch=shared runs pods too; SIGTERM exits 0 and leaves the nodes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { RESTClient, RESOURCES, isNotFoundError, loadKubeconfig, type KubeObject } from '../../src/client/index.js';
import { KSCALE, startServer, type TestServer } from './harness.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON here
type Obj = KubeObject & Record<string, any>;

function kscaleNodes(...args: string[]): string {
  const r = spawnSync(process.execPath, [KSCALE, 'nodes', ...args], { encoding: 'utf8', timeout: 15_000 });
  assert.equal(r.status, 0, `kscale nodes ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('hollow-node fleet', { timeout: 90_000 }, () => {
  let server: TestServer;
  let fleet: FleetProcess;
  let rest: RESTClient;
  const nodes = (): ReturnType<RESTClient['resource']> => rest.resource(RESOURCES.nodes);
  const leases = (): ReturnType<RESTClient['resource']> => rest.resource(RESOURCES.leases);
  const pods = (): ReturnType<RESTClient['resource']> => rest.resource(RESOURCES.pods);
  const renewTimes = async (): Promise<Map<string, string>> =>
    new Map(
      ((await leases().list({ namespace: 'kube-node-lease' })).items as Obj[]).map((l) => [
        l.metadata!.name!,
        l.spec.renewTime as string,
      ]),
    );

  before(async () => {
    server = await startServer();
    rest = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
    fleet = startFleet(server.kubeconfig, ['--count', '200']);
    await fleet.registered;
  });

  after(async () => {
    if (fleet?.p.exitCode === null) fleet.p.kill('SIGKILL');
    rest?.close();
    await server?.stop();
  });

  test('200 nodes register with standard labels and capacity, and all are Ready', async () => {
    const list = await waitFor('200 Ready nodes', async () => {
      const l = (await nodes().list()).items as Obj[];
      const ready = l.filter((n) =>
        (n.status.conditions as Obj[]).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === 200 ? l : undefined;
    });
    const n = list.find((x) => x.metadata!.name === 'hollow-node-7')!;
    assert.equal(n.metadata!.labels!['kubernetes.io/hostname'], 'hollow-node-7');
    assert.match(n.metadata!.labels!['topology.kubernetes.io/zone']!, /^zone-[abc]$/);
    assert.equal(n.status.capacity.pods, '110');
    assert.equal(n.status.nodeInfo.kubeletVersion, 'v1.33.0-kscale');
    assert.equal(n.spec.podCIDR, '10.64.7.0/24');
    assert.equal((n.status.images as unknown[]).length, 50);
  });

  test('leases exist for every node and their renewTime advances', async () => {
    const first = await renewTimes();
    assert.equal(first.size, 200);
    await waitFor(
      'every lease renewed',
      async () => {
        const now = await renewTimes();
        return [...first].every(([name, t]) => (now.get(name) ?? '') > t) ? true : undefined;
      },
      10_000,
    );
  });

  test('a pod bound through pods/binding becomes Running with an IP from its node CIDR, and a deleted pod goes away', async () => {
    await pods().create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
    });
    await pods().bind('web', 'default', 'hollow-node-7');
    const running = await waitFor('Running', async () => {
      const p = (await pods().get('web', { namespace: 'default' })) as Obj;
      return p.status.phase === 'Running' ? p : undefined;
    });
    assert.match(running.status.podIP as string, /^10\.64\.7\.\d+$/);
    assert.equal(running.status.containerStatuses[0].ready, true);
    assert.ok((running.status.conditions as Obj[]).some((c) => c.type === 'Ready' && c.status === 'True'));
    await pods().delete('web', { namespace: 'default' });
    await waitFor('the pod gone', async () => {
      try {
        await pods().get('web', { namespace: 'default' });
        return undefined;
      } catch (err) {
        return isNotFoundError(err) ? true : undefined;
      }
    });
  });

  test('a pod owned by a Job becomes Succeeded after its run time', async () => {
    await pods().create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'job-pod',
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: 'job',
            uid: '0b5e9f0a-0000-4000-8000-000000000001',
            controller: true,
          },
        ],
      },
      spec: { nodeName: 'hollow-node-9', restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
    });
    const done = await waitFor('Succeeded', async () => {
      const p = (await pods().get('job-pod', { namespace: 'default' })) as Obj;
      return p.status.phase === 'Succeeded' ? p : undefined;
    });
    assert.equal(done.status.containerStatuses[0].state.terminated.exitCode, 0);
  });

  test('kill stops the lease renewals of chosen nodes; revive resumes them', async () => {
    assert.match(
      kscaleNodes('kill', '--names', 'hollow-node-3,hollow-node-4', '--kubeconfig', server.kubeconfig),
      /killed 2 nodes: hollow-node-3,hollow-node-4/,
    );
    const frac = kscaleNodes('kill', '--fraction', '0.05', '--kubeconfig', server.kubeconfig);
    assert.match(frac, /killed 10 nodes: /);
    await new Promise((r) => setTimeout(r, 1_500));
    const t0 = await renewTimes();
    await new Promise((r) => setTimeout(r, 2_500));
    const t1 = await renewTimes();
    assert.equal(t1.get('hollow-node-3'), t0.get('hollow-node-3'), 'a killed node renews no more');
    assert.equal(t1.get('hollow-node-4'), t0.get('hollow-node-4'));
    const live = [...t0.keys()].filter((n) => t1.get(n)! > t0.get(n)!);
    assert.equal(live.length, 188, 'every other node keeps renewing');
    assert.match(kscaleNodes('status', '--kubeconfig', server.kubeconfig), /"killed":12/);
    assert.match(kscaleNodes('revive', '--kubeconfig', server.kubeconfig), /revived 12 nodes/);
    await waitFor(
      'renewals resumed',
      async () => ((await renewTimes()).get('hollow-node-3')! > t1.get('hollow-node-3')! ? true : undefined),
      5_000,
    );
  });

  test('a fleet with one shared pod watch runs pods too', async () => {
    const shared = startFleet(server.kubeconfig, [
      '--count',
      '10',
      '--name-prefix',
      'shared-node-',
      '--pod-watch',
      'shared',
    ]);
    try {
      await shared.registered;
      await pods().create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'on-shared', namespace: 'default' },
        spec: { nodeName: 'shared-node-3', containers: [{ name: 'c', image: 'nginx' }] },
      });
      const p = await waitFor('Running on a shared-watch node', async () => {
        const x = (await pods().get('on-shared', { namespace: 'default' })) as Obj;
        return x.status.phase === 'Running' ? x : undefined;
      });
      assert.match(p.status.podIP as string, /^10\.64\.3\.\d+$/);
      assert.match(
        kscaleNodes('kill', '--names', 'shared-node-1,hollow-node-1', '--kubeconfig', server.kubeconfig),
        /killed 2 nodes/,
        'kill reaches every fleet beside the kubeconfig',
      );
    } finally {
      shared.p.kill('SIGTERM');
    }
  });

  test('SIGTERM stops the fleet cleanly: exit 0, endpoint file removed, nodes left in place', async () => {
    const file = `${server.kubeconfig}.fleet-${fleet.p.pid}.json`;
    assert.ok(existsSync(file));
    const code = await new Promise<number | null>((resolve) => {
      fleet.p.once('exit', (c) => resolve(c));
      fleet.p.kill('SIGTERM');
    });
    assert.equal(code, 0);
    assert.equal(existsSync(file), false);
    assert.equal(
      ((await nodes().list()).items as Obj[]).filter((n) => n.metadata!.name!.startsWith('hollow-node-')).length,
      200,
    );
  });
});
