/**
 * The lab's create phase offers the asked rate however slow each call is: a workload's object bundle (its ConfigMap,
 * its Secret, then the workload) is one in-flight action, as in ClusterLoader2's tuning sets, so bundles run side by
 * side. A real server whose every storage commit sleeps 100 ms (a writer failpoint armed over /debug/failpoints)
 * makes each call slow; bundles awaited one after another took at least 200 ms each (the old generator's 66 of the
 * asked 105 pods/s at 2,500 nodes). Within a bundle the order holds: the pods' ConfigMap and Secret exist before the
 * workload that references them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadKubeconfig, RESOURCES, RESTClient, type KubeObject } from '../../src/client/index.js';
import { LoadGenerator } from '../../src/lab/load.js';
import { PodTracker } from '../../src/lab/pod_tracker.js';
import type { PlannedWorkload } from '../../src/lab/scenario.js';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let client: RESTClient;
let tracker: PodTracker;

/** Arms (PUT `action`) or disarms (DELETE) a writer failpoint through the loopback-only debug endpoint. */
async function failpoint(method: 'PUT' | 'DELETE', name: string, action?: string): Promise<number> {
  const res = await client.requestRaw({
    method,
    path: `/debug/failpoints/${name}`,
    ...(action === undefined ? {} : { body: action, contentType: 'text/plain' }),
  });
  return res.status;
}

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.superAdminKubeconfig }), qps: 0, burst: 1 });
  tracker = new PodTracker(client);
  await tracker.start();
});
after(async () => {
  await tracker?.stop();
  client?.close();
  await server?.stop();
});

test('bundles run side by side at the paced rate, each in order: ConfigMap, Secret, then the workload', async () => {
  const namespace = 'bundles';
  const workloads: PlannedWorkload[] = Array.from({ length: 20 }, (_, i) => ({
    kind: 'Deployment',
    namespace,
    name: `w${i}`,
    replicas: 1,
    service: false,
    configMap: true,
    secret: true,
  }));
  const started = performance.now();
  const gen = new LoadGenerator({
    client,
    tracker,
    mode: { workloads: 'controllers', binding: 'scheduler' },
    podRate: 100,
    elapsed: () => (performance.now() - started) / 1000,
    signal: new AbortController().signal,
    random: () => 0.5,
  });
  await gen.createNamespaces([namespace]);
  assert.equal(await failpoint('PUT', 'sqlite/beforeCommit', 'sleep(100)'), 204);
  // No controller-manager runs, so no pod ever appears: the phase ends at its timeout, after every call was issued.
  const phase = await gen.run({ name: 'create', type: 'create' }, workloads, 1_500);
  assert.equal(await failpoint('DELETE', 'sqlite/beforeCommit'), 204);

  assert.equal(phase.errors, 0, phase.note);
  for (const kind of ['ConfigMap', 'Secret', 'Deployment'])
    assert.equal(phase.objects?.[kind]?.changed, 20, `${kind}: one per workload`);
  // 20 pods at 100/s are offered in 0.2 s; with every commit 100 ms, bundles one after another need ≥ 4 s of
  // ConfigMap and Secret calls before the last Deployment (≤ 5 pods/s offered).
  assert.ok(phase.issueRatePerSec > 10, `offered ${phase.issueRatePerSec.toFixed(1)} pods/s`);

  const rv = (o: KubeObject): number => Number(o.metadata?.resourceVersion);
  const byName = async (res: typeof RESOURCES.configmaps): Promise<Map<string, number>> =>
    new Map((await client.resource(res).list({ namespace })).items.map((o) => [o.metadata!.name!, rv(o)]));
  const [cms, secrets, deployments] = await Promise.all([
    byName(RESOURCES.configmaps),
    byName(RESOURCES.secrets),
    byName(RESOURCES.deployments),
  ]);
  for (const w of workloads) {
    const [cm, secret, dep] = [cms.get(w.name), secrets.get(w.name), deployments.get(w.name)];
    assert.ok(cm !== undefined && secret !== undefined && dep !== undefined, `${w.name}: all three created`);
    assert.ok(cm < secret && secret < dep, `${w.name}: created in order (rv ${cm}, ${secret}, ${dep})`);
  }
});
