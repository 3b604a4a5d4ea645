/**
 * Cascading deletion with the real kubectl against `kscale controller-manager`
 * as a process: deleting a Deployment removes its ReplicaSets and pods in the
 * background; `--cascade=foreground` keeps the Deployment (with the
 * foregroundDeletion finalizer) until its pods and ReplicaSets are gone;
 * `--cascade=orphan` leaves the ReplicaSet and pods running, ownerless.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isNotFoundError, RESOURCES } from '../../src/client/index.js';
import { waitFor } from './fixtures/cluster.js';
import type { Kubectl } from './fixtures/kubectl/cli.js';
import { startKubectlCluster, type KubectlCluster } from './fixtures/workloads.js';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/index.js';

let cluster: KubectlCluster;
let k: Kubectl;

before(async () => {
  cluster = await startKubectlCluster(5);
  k = cluster.k;
});
after(async () => {
  await cluster?.stop();
});

const NS = 'default';
const pods = async (app: string): Promise<Pod[]> =>
  (await cluster.client.resource<Pod>(RESOURCES.pods).list({ namespace: NS, labelSelector: `app=${app}` })).items;
const replicaSets = async (app: string): Promise<ReplicaSet[]> =>
  (
    await cluster.client
      .resource<ReplicaSet>(RESOURCES.replicasets)
      .list({ namespace: NS, labelSelector: `app=${app}` })
  ).items;
const getDeployment = (name: string): Promise<Deployment | undefined> =>
  cluster.client
    .resource<Deployment>(RESOURCES.deployments)
    .get(name, { namespace: NS })
    .catch((err: unknown) => {
      if (isNotFoundError(err)) return undefined;
      throw err;
    });

async function createAvailable(name: string, replicas: number): Promise<void> {
  const d = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
    },
  };
  await k.ok(['create', '-f', '-'], { input: JSON.stringify(d) });
  await k.ok(['rollout', 'status', `deployment/${name}`, '--timeout=60s'], { timeoutMs: 70_000 });
}

test('deleting a Deployment removes its ReplicaSets and pods (background)', async () => {
  await createAvailable('bg', 8);
  assert.equal((await pods('bg')).length, 8);
  await k.ok(['delete', 'deployment', 'bg']);
  assert.equal(await getDeployment('bg'), undefined, 'the Deployment goes at once');
  await waitFor(
    'ReplicaSets and pods collected',
    async () => ((await replicaSets('bg')).length === 0 && (await pods('bg')).length === 0 ? true : undefined),
    30_000,
  );
});

test('foreground deletion keeps the Deployment until its pods and ReplicaSets are gone', async () => {
  await createAvailable('fg', 8);
  await k.ok(['delete', 'deployment', 'fg', '--cascade=foreground', '--wait=false']);
  const deleting = await getDeployment('fg');
  assert.ok(deleting?.metadata?.deletionTimestamp, 'the Deployment is marked for deletion, not gone');
  assert.ok(deleting.metadata.finalizers?.includes('foregroundDeletion'));
  await waitFor(
    'the Deployment gone',
    async () => ((await getDeployment('fg')) === undefined ? true : undefined),
    30_000,
  );
  assert.equal((await pods('fg')).length, 0, 'no pod outlives the Deployment');
  assert.equal((await replicaSets('fg')).length, 0, 'no ReplicaSet outlives the Deployment');
});

test('orphan deletion leaves the ReplicaSet and its pods running without the Deployment', async () => {
  await createAvailable('or', 6);
  const rsBefore = await replicaSets('or');
  assert.equal(rsBefore.length, 1);
  await k.ok(['delete', 'deployment', 'or', '--cascade=orphan']);
  await waitFor(
    'the Deployment gone',
    async () => ((await getDeployment('or')) === undefined ? true : undefined),
    20_000,
  );
  const rs = await waitFor('the ReplicaSet orphaned', async () => {
    const [cur] = await replicaSets('or');
    return cur !== undefined && (cur.metadata?.ownerReferences ?? []).length === 0 ? cur : undefined;
  });
  assert.equal(rs.metadata?.uid, rsBefore[0]!.metadata?.uid, 'the same ReplicaSet, not a new one');
  // Give the collector time to do anything wrong.
  await new Promise((r) => setTimeout(r, 1500));
  const live = (await pods('or')).filter((p) => p.metadata?.deletionTimestamp === undefined);
  assert.equal(live.length, 6);
  assert.ok(
    live.every((p) => p.metadata?.ownerReferences?.[0]?.uid === rs.metadata?.uid),
    'pods still belong to the ReplicaSet',
  );
  // Deleting the orphaned ReplicaSet with orphan too leaves its pods ownerless.
  await k.ok(['delete', 'replicaset', rs.metadata!.name!, '--cascade=orphan']);
  await waitFor(
    'pods ownerless',
    async () => {
      const ps = await pods('or');
      return ps.length === 6 && ps.every((p) => (p.metadata?.ownerReferences ?? []).length === 0) ? true : undefined;
    },
    20_000,
  );
});
