/**
 * The real kubectl against `kscale controller-manager` running as its own
 * process: `kubectl rollout status`, `rollout history` (with change-causes),
 * `rollout undo` (kubectl's JSON patch of the template), `kubectl scale`, and
 * `rollout status` failing on a rollout past its progress deadline. Then the
 * cluster sits idle and the API server's request counters show that no
 * controller hot-loops.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES } from '../../src/client/index.js';
import { waitFor } from './fixtures/cluster.js';
import { requestCounts } from './fixtures/api_requests.js';
import { INSECURE_PORT } from './harness.js';
import type { Kubectl } from './fixtures/kubectl/cli.js';
import { startKubectlCluster, type KubectlCluster } from './fixtures/workloads.js';
import type { Pod } from '../../src/api/index.js';

let cluster: KubectlCluster;
let k: Kubectl;

before(async () => {
  // The plain port serves the request-count metrics the efficiency test reads.
  cluster = await startKubectlCluster(10, [...INSECURE_PORT]);
  k = cluster.k;
});
after(async () => {
  await cluster?.stop();
});

const livePods = async (app: string): Promise<Pod[]> =>
  (
    await cluster.client.resource<Pod>(RESOURCES.pods).list({ namespace: 'default', labelSelector: `app=${app}` })
  ).items.filter((p) => p.metadata?.deletionTimestamp === undefined);

function deploymentJSON(
  name: string,
  replicas: number,
  podSpec: Record<string, unknown>,
): { spec: Record<string, unknown> } & Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  };
}

/** The CHANGE-CAUSE column of `rollout history`, by revision. */
function history(out: string): Map<string, string> {
  const rows = out.split('\n').filter((l) => /^\d+\s/.test(l));
  return new Map(
    rows.map((l) => {
      const [rev, ...cause] = l.trim().split(/\s+/);
      return [rev!, cause.join(' ')];
    }),
  );
}

test('kubectl rollout status, history and undo, and kubectl scale, work against the controller-manager', async () => {
  // Created from JSON (create -f); `kubectl create deployment` (protobuf) is covered in kubectl_protobuf.test.ts.
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify(deploymentJSON('web', 20, { containers: [{ name: 'nginx', image: 'nginx:1' }] })),
  });
  await k.ok(['annotate', 'deployment', 'web', 'kubernetes.io/change-cause=first']);
  const status1 = await k.ok(['rollout', 'status', 'deployment/web', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.match(status1, /deployment "web" successfully rolled out/);
  assert.equal((await livePods('web')).length, 20);

  await k.ok(['set', 'image', 'deployment/web', 'nginx=nginx:2']);
  await k.ok(['annotate', '--overwrite', 'deployment', 'web', 'kubernetes.io/change-cause=second']);
  const status2 = await k.ok(['rollout', 'status', 'deployment/web', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.match(status2, /successfully rolled out/);
  await waitFor('change-causes on both revisions', async () => {
    const h = history(await k.ok(['rollout', 'history', 'deployment/web']));
    return h.get('1') === 'first' && h.get('2') === 'second' ? true : undefined;
  });

  assert.match(await k.ok(['rollout', 'undo', 'deployment/web']), /deployment.apps\/web rolled back/);
  assert.match(
    await k.ok(['rollout', 'status', 'deployment/web', '--timeout=60s'], { timeoutMs: 70_000 }),
    /successfully rolled out/,
  );
  const d = await k.getJSON(['deployment', 'web']);
  assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1');
  assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '3');
  const h = history(await k.ok(['rollout', 'history', 'deployment/web']));
  assert.deepEqual([...h.keys()], ['2', '3'], 'revision 1 came back as revision 3');
  assert.equal(h.get('3'), 'first');
  assert.match(await k.ok(['rollout', 'history', 'deployment/web', '--revision=3']), /Image:\s+nginx:1/);
  const pods = await livePods('web');
  assert.equal(pods.length, 20);
  assert.ok(pods.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:1'));

  await k.ok(['scale', 'deployment', 'web', '--replicas=5']);
  assert.match(
    await k.ok(['rollout', 'status', 'deployment/web', '--timeout=60s'], { timeoutMs: 70_000 }),
    /successfully rolled out/,
  );
  await waitFor('5 pods', async () => ((await livePods('web')).length === 5 ? true : undefined));
});

test('kubectl rollout status fails once a rollout passes its progress deadline', async () => {
  const d = deploymentJSON('stuck', 1, { nodeName: 'no-such-node', containers: [{ name: 'c', image: 'nginx:1' }] });
  // Pinned to a node no kubelet runs, the pod never starts; the deadline is 2 s.
  d.spec.progressDeadlineSeconds = 2;
  await k.ok(['create', '-f', '-'], { input: JSON.stringify(d) });
  const r = await k.run(['rollout', 'status', 'deployment/stuck', '--timeout=30s'], { timeoutMs: 40_000 });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /exceeded its progress deadline/);
});

test('no controller hot-loops: an idle cluster sees no workload, pod or Event requests', async () => {
  await k.ok(['delete', 'deployment', 'stuck', '--ignore-not-found']);
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify(deploymentJSON('idle', 10, { containers: [{ name: 'c', image: 'nginx:1' }] })),
  });
  assert.match(
    await k.ok(['rollout', 'status', 'deployment/idle', '--timeout=60s'], { timeoutMs: 70_000 }),
    /successfully rolled out/,
  );
  await waitFor(
    'the stuck Deployment collected',
    async () => ((await livePods('stuck')).length === 0 ? true : undefined),
    20_000,
  );
  // Let the last status writes and Events land.
  await new Promise((r) => setTimeout(r, 3000));
  const before = await requestCounts(cluster.server.url);
  await new Promise((r) => setTimeout(r, 10_000));
  const after = await requestCounts(cluster.server.url);
  const delta = new Map(
    [...after].map(([key, n]) => [key, n - (before.get(key) ?? 0)]).filter(([, n]) => (n as number) > 0) as [
      string,
      number,
    ][],
  );
  // The fleet's heartbeats (node status, leases) and this test's own /metrics reads are expected; nothing else.
  const controllerTraffic = [...delta].filter(
    ([key]) =>
      /\b(deployments|replicasets|events|pods|endpointslices|services|jobs)\b/.test(key) && !key.startsWith('WATCH'),
  );
  if (process.env.DBG) process.stderr.write(`IDLE ${JSON.stringify([...delta])}\n`);
  assert.deepEqual(controllerTraffic, [], `requests while idle: ${JSON.stringify([...delta])}`);
  assert.ok(
    [...delta.keys()].some((key) => key.includes('leases') || key.includes('nodes')),
    `the fleet's heartbeats are counted: ${JSON.stringify([...delta])}`,
  );
});
