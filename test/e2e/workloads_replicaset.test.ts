/**
 * The ReplicaSet controller in-process against a real `kscale server` with
 * hollow nodes: it reaches its replicas and reports them available, never
 * creates more pods than asked (counted from a watch), adopts a matching
 * orphan and releases a pod whose labels stop matching, replaces a deleted
 * pod, scales down, and records SuccessfulCreate/SuccessfulDelete Events.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, type KubeObject } from '../../src/client/index.js';
import { waitFor } from './fixtures/cluster.js';
import { startInProcessControllers, startWorkloadCluster, type WorkloadCluster } from './fixtures/workloads.js';
import type { Pod, ReplicaSet } from '../../src/api/index.js';

let cluster: WorkloadCluster;
let controllers: Awaited<ReturnType<typeof startInProcessControllers>>;

before(async () => {
  cluster = await startWorkloadCluster(5);
  controllers = await startInProcessControllers(cluster.server.kubeconfig, ['replicaset-controller']);
});
after(async () => {
  await controllers?.stop();
  await cluster?.stop();
});

const rsSpec = (name: string, replicas: number): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
  },
});

test('a ReplicaSet reaches its replicas without over-creating, adopts and releases pods, replaces and scales down', async () => {
  const { client } = cluster;
  const rss = client.resource<ReplicaSet>(RESOURCES.replicasets);
  const pods = client.resource<Pod>(RESOURCES.pods);
  const list = await pods.list({ namespace: 'default', labelSelector: 'app=web' });
  const watch = await pods.watch({
    namespace: 'default',
    labelSelector: 'app=web',
    resourceVersion: list.metadata.resourceVersion,
  });
  let added = 0;
  const counting = (async () => {
    for await (const ev of watch) if (ev.type === 'ADDED') added++;
  })();

  const rs = await rss.create(rsSpec('web', 30));
  const ready = await waitFor(
    '30 available replicas',
    async () => {
      const cur = await rss.get('web', { namespace: 'default' });
      return cur.status?.availableReplicas === 30 &&
        cur.status.readyReplicas === 30 &&
        cur.status.observedGeneration === cur.metadata?.generation
        ? cur
        : undefined;
    },
    30_000,
  );
  assert.equal(ready.status?.replicas, 30);
  const owned = (await pods.list({ namespace: 'default', labelSelector: 'app=web' })).items;
  assert.equal(owned.length, 30);
  for (const p of owned) {
    const ref = p.metadata?.ownerReferences?.[0];
    assert.equal(ref?.uid, rs.metadata?.uid);
    assert.equal(ref?.controller, true);
    assert.equal(ref?.blockOwnerDeletion, true);
    assert.match(p.metadata!.name!, /^web-[a-z0-9]{5}$/);
  }
  // Give a lagging informer every chance to over-create: nothing more may appear.
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(added, 30, 'exactly 30 pods were ever created');

  // A deleted pod is replaced.
  await pods.delete(owned[0]!.metadata!.name!, { namespace: 'default', gracePeriodSeconds: 0 });
  await waitFor('a replacement pod', async () => (added === 31 ? true : undefined));

  // An orphan matching the selector is adopted; with 31 pods the surplus goes.
  const orphan = await pods.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'stray', namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  } as KubeObject);
  await waitFor('the orphan adopted or deleted', async () => {
    const cur = await pods.get('stray', { namespace: 'default' }).catch(() => undefined);
    if (cur === undefined || cur.metadata?.deletionTimestamp !== undefined) return true;
    return cur.metadata?.ownerReferences?.[0]?.uid === rs.metadata?.uid ? true : undefined;
  });
  assert.ok(orphan.metadata?.uid);
  await waitFor('30 pods again', async () => {
    const cur = await rss.get('web', { namespace: 'default' });
    return cur.status?.replicas === 30 ? true : undefined;
  });

  // A pod relabelled out of the selector is released (its ownerReference removed) and replaced.
  const victim = (await pods.list({ namespace: 'default', labelSelector: 'app=web' })).items.find(
    (p) => p.metadata?.deletionTimestamp === undefined,
  )!;
  await pods.patch(
    victim.metadata!.name!,
    'merge',
    { metadata: { labels: { app: 'other' } } },
    { namespace: 'default' },
  );
  await waitFor('the relabelled pod released', async () => {
    const cur = await pods.get(victim.metadata!.name!, { namespace: 'default' });
    return (cur.metadata?.ownerReferences ?? []).length === 0 ? true : undefined;
  });

  // Scale down.
  await rss.patch('web', 'merge', { spec: { replicas: 5 } }, { namespace: 'default' });
  await waitFor(
    '5 replicas',
    async () => {
      const cur = await rss.get('web', { namespace: 'default' });
      const live = (await pods.list({ namespace: 'default', labelSelector: 'app=web' })).items.filter(
        (p) => p.metadata?.deletionTimestamp === undefined,
      );
      return cur.status?.replicas === 5 && live.length === 5 ? true : undefined;
    },
    20_000,
  );

  watch.stop();
  await counting;
  await controllers.events.flush();
  const events = client.resource<KubeObject & { reason?: string; count?: number; source?: { component?: string } }>(
    RESOURCES.events,
  );
  const about = (name: string) => async () =>
    (await events.list({ namespace: 'default' })).items.filter(
      (e) => (e.involvedObject as { name?: string }).name === name,
    );
  const created = (await about('web')()).filter((e) => e.reason === 'SuccessfulCreate');
  assert.ok(created.length > 0, 'SuccessfulCreate recorded');
  assert.equal(created[0]!.source?.component, 'replicaset-controller');
  // Aggregation: similar Events fold into one "combined" Event, and the spam filter caps one object's Events at 25.
  assert.ok(created.length <= 11, `${created.length} SuccessfulCreate objects for 30+ creations`);
  assert.ok(
    created.some((e) => (e.message as string).startsWith('(combined from similar events)') && (e.count ?? 0) > 1),
  );
});

test('a ReplicaSet scaled down records SuccessfulDelete for each pod it deletes', async () => {
  const { client } = cluster;
  const rss = client.resource<ReplicaSet>(RESOURCES.replicasets);
  await rss.create(rsSpec('small', 3));
  await waitFor('3 ready', async () =>
    (await rss.get('small', { namespace: 'default' })).status?.readyReplicas === 3 ? true : undefined,
  );
  await rss.patch('small', 'merge', { spec: { replicas: 1 } }, { namespace: 'default' });
  const events = client.resource<KubeObject & { reason?: string; message?: string }>(RESOURCES.events);
  const deleted = await waitFor('two SuccessfulDelete Events', async () => {
    await controllers.events.flush();
    const got = (await events.list({ namespace: 'default' })).items.filter(
      (e) => (e.involvedObject as { name?: string }).name === 'small' && e.reason === 'SuccessfulDelete',
    );
    return got.length === 2 ? got : undefined;
  });
  for (const e of deleted) assert.match(e.message!, /^Deleted pod: small-[a-z0-9]{5}$/);
});
