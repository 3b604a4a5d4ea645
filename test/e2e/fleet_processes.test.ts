/**
 * `kscale nodes --processes 2` against a real `kscale server`: two fleet
 * processes share one node range (hollow-node-0..11, a contiguous slice
 * each), so every node registers exactly once and turns Ready, pods bound to
 * nodes of either process run with IPs from their node's CIDR, `kscale nodes
 * status` reaches both processes, and SIGTERM to the supervisor stops both.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { RESTClient, RESOURCES, loadKubeconfig, type KubeObject } from '../../src/client/index.js';
import { KSCALE, startServer, type TestServer } from './harness.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON here
type Obj = KubeObject & Record<string, any>;

const COUNT = 12;

describe('a fleet split over two processes', { timeout: 90_000 }, () => {
  let server: TestServer;
  let fleet: FleetProcess;
  let rest: RESTClient;

  before(async () => {
    server = await startServer();
    rest = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
    fleet = startFleet(server.kubeconfig, ['--count', String(COUNT), '--processes', '2']);
    await fleet.registered;
  });

  after(async () => {
    await fleet?.stop();
    rest?.close();
    await server?.stop();
  });

  test('the supervisor reports every node registered by two processes', async () => {
    assert.match(
      await fleet.registered,
      new RegExp(`${COUNT} of ${COUNT} nodes registered in .* by 2 fleet processes`),
    );
    assert.ok(
      fleet.out.some((l) => /joining in 2 fleet processes \(first index 0, 6\+6\)/.test(l)),
      fleet.out.join('\n'),
    );
  });

  test('every node of the range is Ready exactly once, with the addresses one process would give it', async () => {
    const list = await waitFor(`${COUNT} Ready nodes`, async () => {
      const l = (await rest.resource(RESOURCES.nodes).list()).items as Obj[];
      const ready = l.filter((n) =>
        (n.status.conditions as Obj[]).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === COUNT ? l : undefined;
    });
    const names = list.map((n) => n.metadata!.name!).sort();
    assert.deepEqual(names, Array.from({ length: COUNT }, (_, i) => `hollow-node-${i}`).sort());
    const cidrs = new Set(list.map((n) => n.spec.podCIDR as string));
    const ips = new Set(list.map((n) => (n.status.addresses as Obj[]).find((a) => a.type === 'InternalIP')!.address));
    assert.equal(cidrs.size, COUNT, 'no two nodes share a pod CIDR');
    assert.equal(ips.size, COUNT, 'no two nodes share an InternalIP');
    assert.equal(list.find((n) => n.metadata!.name === 'hollow-node-9')!.spec.podCIDR, '10.64.9.0/24');
  });

  test('pods on nodes of either process start', async () => {
    const pods = rest.resource(RESOURCES.pods);
    for (const node of ['hollow-node-1', 'hollow-node-10'])
      await pods.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `on-${node}`, namespace: 'default' },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] },
      });
    for (const [node, block] of [
      ['hollow-node-1', 1],
      ['hollow-node-10', 10],
    ] as const) {
      const p = await waitFor(`Running on ${node}`, async () => {
        const x = (await pods.get(`on-${node}`, { namespace: 'default' })) as Obj;
        return x.status.phase === 'Running' ? x : undefined;
      });
      assert.match(p.status.podIP as string, new RegExp(`^10\\.64\\.${block}\\.\\d+$`));
    }
  });

  test('kscale nodes status reaches both fleet processes, each with its half of the nodes', () => {
    const r = spawnSync(process.execPath, [KSCALE, 'nodes', 'status', '--kubeconfig', server.kubeconfig], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { pid: number; count: number });
    assert.equal(lines.length, 2, r.stdout);
    assert.deepEqual(
      lines.map((l) => l.count),
      [6, 6],
    );
    assert.notEqual(lines[0]!.pid, lines[1]!.pid);
    assert.ok(
      lines.every((l) => l.pid !== fleet.p.pid),
      'the supervisor runs no nodes itself',
    );
  });

  test('SIGTERM to the supervisor stops both fleet processes and it exits 0', async () => {
    const status = spawnSync(process.execPath, [KSCALE, 'nodes', 'status', '--kubeconfig', server.kubeconfig], {
      encoding: 'utf8',
    });
    const pids = status.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { pid: number }).pid);
    const code = await new Promise<number | null>((resolve) => {
      fleet.p.once('exit', (c) => resolve(c));
      fleet.p.kill('SIGTERM');
    });
    assert.equal(code, 0);
    for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/, `fleet process ${pid} is gone`);
  });
});
