/**
 * `kscale controller-manager` as its own process against a real
 * `kscale server`, with short periods through its flags: a node whose lease
 * is not renewed goes Unknown and gets tainted, a renewing one stays Ready,
 * and SIGTERM stops the process cleanly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startServer, type TestServer } from './harness.js';
import { addReadyNode, startShortPeriodControllerManager } from './nodelifecycle_helpers.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import { getCondition, TAINT_NODE_UNREACHABLE } from '../../src/controller/nodeutil/index.js';
import { formatMicroTimestamp, NAMESPACE_NODE_LEASE, type Lease, type Node } from '../../src/api/index.js';

let server: TestServer;
let cm: ChildProcess;
let client: RESTClient;
let stderr = '';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
});
after(async () => {
  if (cm !== undefined && cm.exitCode === null) cm.kill('SIGKILL');
  client?.close();
  await server?.stop();
});

test('kscale controller-manager with short periods marks a dead node Unknown and taints it, then stops on SIGTERM', async () => {
  await addReadyNode(client, 'alive', { 'topology.kubernetes.io/zone': 'z1' });
  await addReadyNode(client, 'dead', { 'topology.kubernetes.io/zone': 'z1' });
  cm = await startShortPeriodControllerManager(server.kubeconfig, (d) => (stderr += d));
  const leases = client.resource<Lease>(RESOURCES.leases);
  const nodes = client.resource<Node>(RESOURCES.nodes);
  const t0 = Date.now();
  let dead: Node | undefined;
  while (Date.now() - t0 < 15_000) {
    await leases.patch(
      'alive',
      'merge',
      { spec: { renewTime: formatMicroTimestamp(Date.now()) } },
      { namespace: NAMESPACE_NODE_LEASE },
    );
    dead = await nodes.get('dead');
    if (dead.spec?.taints?.some((t) => t.key === TAINT_NODE_UNREACHABLE && t.effect === 'NoExecute')) break;
    await sleep(250);
  }
  const elapsed = Date.now() - t0;
  assert.equal(getCondition(dead?.status?.conditions, 'Ready')?.status, 'Unknown', `dead node Unknown: ${stderr}`);
  assert.ok(dead?.spec?.taints?.some((t) => t.key === TAINT_NODE_UNREACHABLE && t.effect === 'NoSchedule'));
  assert.ok(dead?.spec?.taints?.some((t) => t.key === TAINT_NODE_UNREACHABLE && t.effect === 'NoExecute'));
  // Grace 4 s + one period to notice + one period to queue the taint, plus scheduling slack.
  assert.ok(elapsed < 10_000, `tainted after ${elapsed} ms`);
  const alive = await nodes.get('alive');
  assert.equal(getCondition(alive.status?.conditions, 'Ready')?.status, 'True');
  assert.deepEqual(alive.spec?.taints ?? [], []);

  const exited = new Promise<number | null>((r) => cm.once('exit', (code) => r(code)));
  cm.kill('SIGTERM');
  assert.equal(await exited, 0);
});
