/**
 * The Deployment and ReplicaSet controllers in-process against a real
 * `kscale server` with hollow nodes: 100 replicas become available; a rolling
 * image update keeps maxUnavailable and maxSurge at every step, as seen from
 * a pod watch; scaling 100 -> 0 -> 50 works; Recreate never overlaps old and
 * new pods; revisionHistoryLimit prunes old ReplicaSets; a rollout that
 * cannot progress reports ProgressDeadlineExceeded.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, type KubeObject } from '../../src/client/index.js';
import { waitFor } from './fixtures/cluster.js';
import { startInProcessControllers, startWorkloadCluster, type WorkloadCluster } from './fixtures/workloads.js';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/index.js';

let cluster: WorkloadCluster;
let controllers: Awaited<ReturnType<typeof startInProcessControllers>>;

before(async () => {
  cluster = await startWorkloadCluster(20);
  controllers = await startInProcessControllers(cluster.server.kubeconfig, [
    'replicaset-controller',
    'deployment-controller',
  ]);
});
after(async () => {
  await controllers?.stop();
  await cluster?.stop();
});

const NS = 'default';

function deployment(name: string, replicas: number, spec: Partial<NonNullable<Deployment['spec']>> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...spec,
    },
  };
}

async function waitComplete(name: string, replicas: number, ms = 120_000): Promise<Deployment> {
  const client = cluster.client.resource<Deployment>(RESOURCES.deployments);
  return waitFor(
    `${name} complete with ${replicas}`,
    async () => {
      const d = await client.get(name, { namespace: NS });
      const s = d.status ?? {};
      const progressing = s.conditions?.find((c) => c.type === 'Progressing');
      const ok =
        (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
        (s.updatedReplicas ?? 0) === replicas &&
        (s.replicas ?? 0) === replicas &&
        (s.availableReplicas ?? 0) === replicas;
      return ok && (replicas === 0 || progressing?.reason === 'NewReplicaSetAvailable') ? d : undefined;
    },
    ms,
  );
}

const livePods = async (app: string): Promise<Pod[]> =>
  (
    await cluster.client.resource<Pod>(RESOURCES.pods).list({ namespace: NS, labelSelector: `app=${app}` })
  ).items.filter((p) => p.metadata?.deletionTimestamp === undefined);

test('a Deployment of 100 replicas becomes available, and a rolling update keeps maxUnavailable and maxSurge at every step', async () => {
  const client = cluster.client.resource<Deployment>(RESOURCES.deployments);
  const pods = cluster.client.resource<Pod>(RESOURCES.pods);
  await client.create(
    deployment('web', 100, {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 10, maxSurge: 20 } },
    }),
  );
  const done = await waitComplete('web', 100);
  assert.equal(done.status?.conditions?.find((c) => c.type === 'Available')?.status, 'True');
  assert.equal(done.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  const rs1 = (
    await cluster.client.resource<ReplicaSet>(RESOURCES.replicasets).list({ namespace: NS, labelSelector: 'app=web' })
  ).items;
  assert.equal(rs1.length, 1);
  const hash = rs1[0]!.metadata!.labels!['pod-template-hash']!;
  assert.equal(rs1[0]!.metadata!.name, `web-${hash}`);
  assert.equal(rs1[0]!.metadata!.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal((await livePods('web')).filter((p) => p.metadata?.labels?.['pod-template-hash'] === hash).length, 100);

  // Watch every pod change through the update; check the invariants at each event.
  const list = await pods.list({ namespace: NS, labelSelector: 'app=web' });
  const state = new Map<string, Pod>(list.items.map((p) => [p.metadata!.name!, p]));
  const watch = await pods.watch({
    namespace: NS,
    labelSelector: 'app=web',
    resourceVersion: list.metadata.resourceVersion,
  });
  let minAvailable = Infinity;
  let maxTotal = 0;
  let events = 0;
  const ready = (p: Pod): boolean =>
    p.metadata?.deletionTimestamp === undefined &&
    (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const watching = (async () => {
    for await (const ev of watch) {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
      const pod = ev.object as Pod;
      if (ev.type === 'DELETED') state.delete(pod.metadata!.name!);
      else state.set(pod.metadata!.name!, pod);
      events++;
      const all = [...state.values()];
      minAvailable = Math.min(minAvailable, all.filter(ready).length);
      maxTotal = Math.max(maxTotal, all.filter((p) => p.metadata?.deletionTimestamp === undefined).length);
    }
  })();
  await client.patch(
    'web',
    'strategic',
    { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
    { namespace: NS },
  );
  const updated = await waitComplete('web', 100, 180_000);
  watch.stop();
  await watching;
  assert.ok(events > 200, `saw ${events} pod events`);
  assert.ok(minAvailable >= 90, `available pods never below 100 - maxUnavailable: min ${minAvailable}`);
  assert.ok(maxTotal <= 120, `pods never above 100 + maxSurge: max ${maxTotal}`);
  assert.equal(updated.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
  const live = await livePods('web');
  assert.equal(live.length, 100);
  assert.ok(live.every((p) => (p.spec as { containers: { image: string }[] }).containers[0]!.image === 'nginx:2'));
  const rss = (
    await cluster.client.resource<ReplicaSet>(RESOURCES.replicasets).list({ namespace: NS, labelSelector: 'app=web' })
  ).items;
  assert.equal(rss.length, 2, 'the old ReplicaSet stays as revision history');
  assert.equal(rss.find((rs) => rs.metadata?.name === `web-${hash}`)?.spec?.replicas, 0);

  // Scaling 100 -> 0 -> 50 through the scale subresource.
  await client.patch('web', 'merge', { spec: { replicas: 0 } }, { namespace: NS, subresource: 'scale' });
  await waitComplete('web', 0);
  await waitFor('no pods', async () => ((await livePods('web')).length === 0 ? true : undefined), 30_000);
  await client.patch('web', 'merge', { spec: { replicas: 50 } }, { namespace: NS, subresource: 'scale' });
  await waitComplete('web', 50);
  assert.equal((await livePods('web')).length, 50);
  const scale = await client.getSubresource<KubeObject & { spec: { replicas: number }; status: { replicas: number } }>(
    'web',
    'scale',
    { namespace: NS },
  );
  assert.equal(scale.spec.replicas, 50);
  assert.equal(scale.status.replicas, 50);
});

test('Recreate scales the old ReplicaSet to zero and waits for its pods before starting new ones', async () => {
  const client = cluster.client.resource<Deployment>(RESOURCES.deployments);
  const pods = cluster.client.resource<Pod>(RESOURCES.pods);
  await client.create(deployment('rec', 10, { strategy: { type: 'Recreate' } }));
  await waitComplete('rec', 10);
  const list = await pods.list({ namespace: NS, labelSelector: 'app=rec' });
  const oldHash = list.items[0]!.metadata!.labels!['pod-template-hash'];
  const state = new Map<string, Pod>(list.items.map((p) => [p.metadata!.name!, p]));
  const watch = await pods.watch({
    namespace: NS,
    labelSelector: 'app=rec',
    resourceVersion: list.metadata.resourceVersion,
  });
  let overlap = 0;
  const watching = (async () => {
    for await (const ev of watch) {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
      const pod = ev.object as Pod;
      if (ev.type === 'DELETED') state.delete(pod.metadata!.name!);
      else state.set(pod.metadata!.name!, pod);
      // Like upstream's oldPodsRunning: an old pod whose containers have
      // exited (the kubelet reports Succeeded/Failed before the final DELETE)
      // no longer runs, so a new pod may start beside it.
      const pods = [...state.values()];
      const oldRunning = pods.some(
        (p) =>
          p.metadata?.labels?.['pod-template-hash'] === oldHash &&
          p.status?.phase !== 'Succeeded' &&
          p.status?.phase !== 'Failed',
      );
      const anyNew = pods.some((p) => p.metadata?.labels?.['pod-template-hash'] !== oldHash);
      if (oldRunning && anyNew) overlap++;
    }
  })();
  await client.patch(
    'rec',
    'strategic',
    { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
    { namespace: NS },
  );
  await waitComplete('rec', 10);
  watch.stop();
  await watching;
  assert.equal(overlap, 0, 'no new pod existed while an old one still ran');
});

test('revisionHistoryLimit keeps only that many old ReplicaSets', async () => {
  const client = cluster.client.resource<Deployment>(RESOURCES.deployments);
  await client.create(deployment('hist', 2, { revisionHistoryLimit: 1 }));
  await waitComplete('hist', 2);
  for (const image of ['nginx:2', 'nginx:3', 'nginx:4']) {
    await client.patch(
      'hist',
      'strategic',
      { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } },
      { namespace: NS },
    );
    await waitComplete('hist', 2);
  }
  const rss = await waitFor('old revisions pruned', async () => {
    const items = (
      await cluster.client
        .resource<ReplicaSet>(RESOURCES.replicasets)
        .list({ namespace: NS, labelSelector: 'app=hist' })
    ).items.filter((rs) => rs.metadata?.deletionTimestamp === undefined);
    return items.length === 2 ? items : undefined;
  });
  assert.deepEqual(rss.map((rs) => rs.metadata?.annotations?.['deployment.kubernetes.io/revision']).sort(), ['3', '4']);
});

test('a rollout whose pods never become ready reports ProgressDeadlineExceeded', async () => {
  const client = cluster.client.resource<Deployment>(RESOURCES.deployments);
  const d = deployment('stuck', 2, { progressDeadlineSeconds: 2 });
  // Pods pinned to a node no kubelet runs: they never start.
  d.spec!.template!.spec!.nodeName = 'no-such-node';
  await client.create(d);
  const cond = await waitFor(
    'ProgressDeadlineExceeded',
    async () => {
      const cur = await client.get('stuck', { namespace: NS });
      const c = cur.status?.conditions?.find((x) => x.type === 'Progressing');
      return c?.reason === 'ProgressDeadlineExceeded' ? c : undefined;
    },
    20_000,
  );
  assert.equal(cond.status, 'False');
  assert.match(cond.message ?? '', /has timed out progressing/);
});
