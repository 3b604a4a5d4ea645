/**
 * StatefulSets on a hollow fleet with `kscale controller-manager`, the
 * scheduler and the real kubectl: OrderedReady pods come up one at a time in
 * ordinal order with their identity labels, hostname and subdomain; `kubectl
 * scale` removes the highest ordinals first; a partitioned rolling update
 * stops at the partition and then finishes in reverse ordinal order; rollout
 * history and undo use ControllerRevisions; Parallel creates at once;
 * client-node's AppsV1Api reads the kinds; volumeClaimTemplates give each pod
 * its claims, which the retention policy deletes on scale-down and with the
 * set; bad input is a 422.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, KubeConfig } from '@kubernetes/client-node';
import { RESOURCES, type Watch, type WatchEvent } from '../../src/client/index.js';
import type { PersistentVolumeClaim, Pod } from '../../src/api/index.js';
import { waitFor } from './fixtures/cluster.js';
import { header, row, type Kubectl } from './fixtures/kubectl/cli.js';
import { startKubectlCluster, type KubectlCluster } from './fixtures/workloads.js';

let cluster: KubectlCluster;
let k: Kubectl;
let watch: Watch<Pod>;
const events: { type: string; name: string; ready: boolean; image: string; deleting: boolean }[] = [];

before(async () => {
  cluster = await startKubectlCluster(3);
  k = cluster.k;
  watch = await cluster.client.resource<Pod>(RESOURCES.pods).watch({ namespace: 'default', labelSelector: 'app=web' });
  void (async () => {
    for await (const e of watch as AsyncIterable<WatchEvent<Pod>>) {
      if (e.type === 'ERROR' || e.type === 'BOOKMARK') continue;
      const p = e.object;
      events.push({
        type: e.type,
        name: p.metadata?.name ?? '',
        ready: (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
        image: p.spec?.containers[0]?.image ?? '',
        deleting: p.metadata?.deletionTimestamp !== undefined,
      });
    }
  })();
});
after(async () => {
  watch?.stop();
  await cluster?.stop();
});

const livePods = async (app: string): Promise<Pod[]> =>
  (
    await cluster.client.resource<Pod>(RESOURCES.pods).list({ namespace: 'default', labelSelector: `app=${app}` })
  ).items.filter((p) => p.metadata?.deletionTimestamp === undefined);

function statefulSet(name: string, replicas: number, image: string, extraSpec: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
      ...extraSpec,
    },
  });
}

const firstIndex = (pred: (e: (typeof events)[number]) => boolean): number => events.findIndex(pred);

test('OrderedReady creates web-0, web-1, web-2 one at a time, each after the one before is Ready', async () => {
  await k.ok(['create', '-f', '-'], { input: statefulSet('web', 3, 'web:1') });
  const out = await k.ok(['rollout', 'status', 'sts/web', '--timeout=60s'], { timeoutMs: 70_000 });
  // kubectl reports any RollingUpdate with a partition (defaulted to 0) as "partitioned", as against upstream.
  assert.match(out, /partitioned roll out complete: 3 new pods have been updated/);
  for (let i = 1; i < 3; i++) {
    const added = firstIndex((e) => e.type === 'ADDED' && e.name === `web-${i}`);
    const prevReady = firstIndex((e) => e.name === `web-${i - 1}` && e.ready);
    assert.ok(
      prevReady >= 0 && added > prevReady,
      `web-${i} created (${added}) after web-${i - 1} Ready (${prevReady})`,
    );
  }
  const pods = await livePods('web');
  assert.deepEqual(pods.map((p) => p.metadata?.name).sort(), ['web-0', 'web-1', 'web-2']);
  for (const p of pods) {
    const n = p.metadata!.name!;
    assert.equal(p.metadata?.labels?.['statefulset.kubernetes.io/pod-name'], n);
    assert.equal(p.metadata?.labels?.['apps.kubernetes.io/pod-index'], n.slice(4));
    assert.equal(p.spec?.hostname, n);
    assert.equal(p.spec?.subdomain, 'web');
  }
  const table = await k.ok(['get', 'sts']);
  assert.deepEqual(header(table), ['NAME', 'READY', 'AGE']);
  assert.equal(row(table, 'web').READY, '3/3');
  const all = await k.ok(['get', 'ds,sts,controllerrevisions']);
  assert.match(all, /statefulset.apps\/web\s+3\/3/);
  assert.match(all, /controllerrevision.apps\/web-\S+\s+statefulset.apps\/web\s+1/);
});

test('kubectl scale sts removes the highest ordinal first', async () => {
  events.length = 0;
  await k.ok(['scale', 'sts/web', '--replicas=1']);
  await waitFor('one pod left', async () => ((await livePods('web')).length === 1 ? true : undefined), 30_000);
  assert.equal((await livePods('web'))[0].metadata?.name, 'web-0');
  const del2 = firstIndex((e) => e.name === 'web-2' && (e.deleting || e.type === 'DELETED'));
  const del1 = firstIndex((e) => e.name === 'web-1' && (e.deleting || e.type === 'DELETED'));
  const gone2 = firstIndex((e) => e.name === 'web-2' && e.type === 'DELETED');
  assert.ok(del2 >= 0 && del1 > del2, `web-2 (${del2}) goes before web-1 (${del1})`);
  assert.ok(gone2 >= 0 && del1 > gone2, 'OrderedReady waits until web-2 is gone before deleting web-1');
  await k.ok(['scale', 'sts/web', '--replicas=3']);
  await k.ok(['rollout', 'status', 'sts/web', '--timeout=60s'], { timeoutMs: 70_000 });
});

test('a partitioned rolling update stops at the partition, then finishes in reverse ordinal order', async () => {
  await k.ok(['patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}']);
  await k.ok(['set', 'image', 'sts/web', 'app=web:2']);
  const out = await k.ok(['rollout', 'status', 'sts/web', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.match(out, /partitioned roll out complete: 1 new pods have been updated/);
  const images = async (): Promise<Record<string, string>> =>
    Object.fromEntries((await livePods('web')).map((p) => [p.metadata!.name!, p.spec!.containers[0].image!]));
  assert.deepEqual(await images(), { 'web-0': 'web:1', 'web-1': 'web:1', 'web-2': 'web:2' });
  events.length = 0;
  await k.ok(['patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}']);
  await k.ok(['rollout', 'status', 'sts/web', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.deepEqual(await images(), { 'web-0': 'web:2', 'web-1': 'web:2', 'web-2': 'web:2' });
  const up1 = firstIndex((e) => e.name === 'web-1' && e.type === 'ADDED' && e.image === 'web:2');
  const up0 = firstIndex((e) => e.name === 'web-0' && e.type === 'ADDED' && e.image === 'web:2');
  assert.ok(up1 >= 0 && up0 > up1, `web-1 (${up1}) is replaced before web-0 (${up0})`);
  const sts = await k.getJSON(['sts', 'web']);
  assert.equal(sts.status.currentRevision, sts.status.updateRevision);
  assert.equal(sts.status.updatedReplicas, 3);
});

test('rollout history and undo of a StatefulSet restore the earlier template', async () => {
  const history = await k.ok(['rollout', 'history', 'sts/web']);
  assert.match(history, /^1\s/m);
  assert.match(history, /^2\s/m);
  await k.ok(['rollout', 'undo', 'sts/web']);
  await k.ok(['rollout', 'status', 'sts/web', '--timeout=60s'], { timeoutMs: 70_000 });
  const sts = await k.getJSON(['sts', 'web']);
  assert.equal(sts.spec.template.spec.containers[0].image, 'web:1');
  await waitFor('every pod back on web:1', async () => {
    const pods = await livePods('web');
    return pods.length === 3 && pods.every((p) => p.spec?.containers[0].image === 'web:1') ? true : undefined;
  });
});

test('Parallel management creates every pod at once, and client-node AppsV1Api reads the kinds', async () => {
  await k.ok(['create', '-f', '-'], { input: statefulSet('par', 4, 'par:1', { podManagementPolicy: 'Parallel' }) });
  await k.ok(['rollout', 'status', 'sts/par', '--timeout=60s'], { timeoutMs: 70_000 });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.server.kubeconfig);
  const apps = kc.makeApiClient(AppsV1Api);
  const sts = await apps.readNamespacedStatefulSet({ name: 'par', namespace: 'default' });
  assert.equal(sts.spec?.podManagementPolicy, 'Parallel');
  assert.equal(sts.status?.readyReplicas, 4);
  assert.equal(sts.spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted, 'Retain');
  const revs = await apps.listNamespacedControllerRevision({ namespace: 'default' });
  assert.ok(revs.items.some((r) => r.metadata?.ownerReferences?.[0]?.name === 'par' && r.revision === 1));
  const scale = await apps.readNamespacedStatefulSetScale({ name: 'par', namespace: 'default' });
  assert.equal(scale.spec?.replicas, 4);
  const list = await apps.listNamespacedDaemonSet({ namespace: 'default' });
  assert.equal(list.items.length, 0);
});

test('bad StatefulSets are 422: a selector that misses the template, a changed selector or serviceName', async () => {
  const bad = JSON.parse(statefulSet('bad', 1, 'x:1')) as { spec: { selector: unknown } };
  bad.spec.selector = { matchLabels: { app: 'other' } };
  const err = await k.fails(['create', '-f', '-'], { input: JSON.stringify(bad) });
  assert.match(
    err,
    /The StatefulSet "bad" is invalid: spec.template.metadata.labels: Invalid value: .*`selector` does not match template `labels`/,
  );
  const err2 = await k.fails(['patch', 'sts', 'web', '--type=merge', '-p', '{"spec":{"serviceName":"other"}}']);
  assert.match(err2, /spec: Forbidden: updates to statefulset spec for fields other than 'replicas'/);
  const err3 = await k.fails([
    'patch',
    'sts',
    'web',
    '--type=merge',
    '-p',
    '{"spec":{"selector":{"matchLabels":{"app":"web","x":"y"}},"template":{"metadata":{"labels":{"x":"y"}}}}}',
  ]);
  assert.match(err3, /spec: Forbidden: updates to statefulset spec/);
});

test('volumeClaimTemplates: claims <template>-<pod> bound before the pods, deleted on scale-down and with the set by the retention policy', async () => {
  const claims = cluster.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
  const claimNames = async (): Promise<string[]> =>
    (await claims.list({ namespace: 'default', labelSelector: 'app=db' })).items
      .filter((c) => c.metadata?.deletionTimestamp === undefined)
      .map((c) => c.metadata!.name!)
      .sort();
  const template = {
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
  await k.ok(['create', '-f', '-'], {
    input: statefulSet('db', 2, 'db:1', {
      volumeClaimTemplates: [template],
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
    }),
  });
  await k.ok(['rollout', 'status', 'sts/db', '--timeout=60s'], { timeoutMs: 70_000 });
  assert.deepEqual(await claimNames(), ['data-db-0', 'data-db-1']);
  const pods = await livePods('db');
  for (const p of pods)
    assert.deepEqual(
      p.spec?.volumes?.find((v) => v.name === 'data'),
      { name: 'data', persistentVolumeClaim: { claimName: `data-${p.metadata!.name!}` } },
    );
  const c0 = await claims.get('data-db-0', { namespace: 'default' });
  assert.deepEqual(
    c0.metadata?.ownerReferences?.map((r) => `${r.kind}/${r.name}`),
    ['StatefulSet/db'],
  );
  await waitFor('the hollow provisioner binds both claims', async () => {
    const items = (await claims.list({ namespace: 'default', labelSelector: 'app=db' })).items;
    return items.length === 2 && items.every((c) => c.status?.phase === 'Bound') ? true : undefined;
  });
  const table = await k.ok(['get', 'pvc', '-l', 'app=db']);
  assert.match(table, /data-db-1\s+Bound/);

  await k.ok(['scale', 'sts/db', '--replicas=1']);
  await waitFor('data-db-1 deleted with the scaled-away pod', async () =>
    (await claimNames()).join() === 'data-db-0' ? true : undefined,
  );
  assert.deepEqual(
    (await livePods('db')).map((p) => p.metadata?.name),
    ['db-0'],
  );

  await k.ok(['delete', 'sts', 'db']);
  await waitFor('data-db-0 deleted with the set', async () => ((await claimNames()).length === 0 ? true : undefined));
});

test('volumeClaimTemplates under the default Retain policy: claims outlive scale-down and the set', async () => {
  const claims = cluster.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
  await k.ok(['create', '-f', '-'], {
    input: statefulSet('kept', 2, 'kept:1', {
      podManagementPolicy: 'Parallel',
      volumeClaimTemplates: [
        {
          metadata: { name: 'www' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
        },
      ],
    }),
  });
  await k.ok(['rollout', 'status', 'sts/kept', '--timeout=60s'], { timeoutMs: 70_000 });
  await k.ok(['scale', 'sts/kept', '--replicas=0']);
  await waitFor('no kept pods', async () => ((await livePods('kept')).length === 0 ? true : undefined), 30_000);
  await k.ok(['delete', 'sts', 'kept']);
  const left = (await claims.list({ namespace: 'default', labelSelector: 'app=kept' })).items;
  assert.deepEqual(left.map((c) => c.metadata?.name).sort(), ['www-kept-0', 'www-kept-1']);
  assert.ok(left.every((c) => (c.metadata?.ownerReferences ?? []).length === 0));
  assert.ok(left.every((c) => c.metadata?.deletionTimestamp === undefined));
});

test('the default scheduler profile runs VolumeBinding: a pod waits for its missing claim, and the claim event requeues it', async () => {
  const pods = cluster.client.resource<Pod>(RESOURCES.pods);
  const claims = cluster.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
  await pods.create(
    {
      metadata: { name: 'needs-claim', namespace: 'default' },
      spec: {
        containers: [{ name: 'c', image: 'x' }],
        volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'late' } }],
      },
    },
    { namespace: 'default' },
  );
  const message = await waitFor('PodScheduled=False from VolumeBinding', async () => {
    const p = await pods.get('needs-claim', { namespace: 'default' });
    const c = p.status?.conditions?.find((x) => x.type === 'PodScheduled' && x.status === 'False');
    return c?.message;
  });
  assert.match(message, /persistentvolumeclaim "late" not found/);
  await claims.create(
    {
      metadata: { name: 'late', namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
    },
    { namespace: 'default' },
  );
  // Well inside the scheduler's 5-minute unschedulable flush: the claim's events move the pod back.
  await waitFor(
    'the pod is bound once its claim is',
    async () => ((await pods.get('needs-claim', { namespace: 'default' })).spec?.nodeName ? true : undefined),
    20_000,
  );
  assert.equal((await claims.get('late', { namespace: 'default' })).status?.phase, 'Bound');
});
