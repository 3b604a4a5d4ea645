/**
 * The pod garbage collector in-process against a real `kscale server` and
 * hollow nodes, with a short period and quarantine: terminated pods above
 * --terminated-pod-gc-threshold go, oldest first, and running pods stay;
 * pods bound to a node that was deleted are marked Failed (DisruptionTarget,
 * DeletionByPodGC) and deleted, but not before the quarantine time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES, type KubeObject } from '../../src/client/index.js';
import { waitFor } from './fixtures/cluster.js';
import { startInProcessControllers, startWorkloadCluster, type WorkloadCluster } from './fixtures/workloads.js';
import type { Pod } from '../../src/api/index.js';

let cluster: WorkloadCluster;
let controllers: Awaited<ReturnType<typeof startInProcessControllers>>;
const QUARANTINE_MS = 3000;

before(async () => {
  cluster = await startWorkloadCluster(3);
  controllers = await startInProcessControllers(
    cluster.server.kubeconfig,
    ['pod-garbage-collector-controller'],
    (c) => {
      c.podGC = { terminatedPodGCThreshold: 5, gcCheckPeriodMs: 300, quarantineMs: QUARANTINE_MS };
    },
  );
});
after(async () => {
  await controllers?.stop();
  await cluster?.stop();
});

const NS = 'default';
const pod = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels, ...extra },
  spec: { containers: [{ name: 'c', image: 'x' }] },
});

test('terminated pods above the threshold are deleted oldest first; running pods stay', async () => {
  const pods = cluster.client.resource<Pod>(RESOURCES.pods);
  // Pods a Job owns run for 1 s on hollow nodes, then succeed.
  const jobRef = {
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: '00000000-0000-0000-0000-00000000000a' }],
  };
  for (let i = 0; i < 4; i++) await pods.create(pod(`old-${i}`, { gc: 'done' }, jobRef));
  // creationTimestamp has second precision: the next pods are strictly newer.
  await new Promise((r) => setTimeout(r, 1100));
  for (let i = 0; i < 5; i++) await pods.create(pod(`new-${i}`, { gc: 'done' }, jobRef));
  for (let i = 0; i < 3; i++) await pods.create(pod(`run-${i}`, { gc: 'run' }));
  const left = await waitFor(
    'terminated pods down to the threshold',
    async () => {
      const done = (await pods.list({ namespace: NS, labelSelector: 'gc=done' })).items;
      return done.length === 5 && done.every((p) => p.status?.phase === 'Succeeded') ? done : undefined;
    },
    30_000,
  );
  assert.deepEqual(
    left.map((p) => p.metadata!.name).sort(),
    ['new-0', 'new-1', 'new-2', 'new-3', 'new-4'],
    'the four oldest went',
  );
  const running = (await pods.list({ namespace: NS, labelSelector: 'gc=run' })).items;
  assert.equal(running.length, 3);
});

test('pods bound to a deleted node are marked Failed and deleted after the quarantine', async () => {
  const nodes = cluster.client.resource(RESOURCES.nodes);
  const pods = cluster.client.resource<Pod>(RESOURCES.pods);
  await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'doomed' }, spec: {} } as KubeObject);
  for (let i = 0; i < 3; i++) {
    const p = pod(`orphan-${i}`, { gc: 'orphan' });
    p.spec!.nodeName = 'doomed';
    await pods.create(p);
  }
  const list = await pods.list({ namespace: NS, labelSelector: 'gc=orphan' });
  const watch = await pods.watch({
    namespace: NS,
    labelSelector: 'gc=orphan',
    resourceVersion: list.metadata.resourceVersion,
  });
  const markedFailed = new Set<string>();
  const deletedAt = new Map<string, number>();
  const watching = (async () => {
    for await (const ev of watch) {
      if (ev.type !== 'MODIFIED' && ev.type !== 'DELETED') continue;
      const p = ev.object as Pod;
      const disrupted = (p.status?.conditions ?? []).some(
        (c) => c.type === 'DisruptionTarget' && c.reason === 'DeletionByPodGC',
      );
      if (p.status?.phase === 'Failed' && disrupted) markedFailed.add(p.metadata!.name!);
      if (ev.type === 'DELETED') deletedAt.set(p.metadata!.name!, Date.now());
      if (deletedAt.size === 3) return;
    }
  })();
  const t0 = Date.now();
  await nodes.delete('doomed');
  await waitFor('orphaned pods deleted', async () => (deletedAt.size === 3 ? true : undefined), 20_000);
  watch.stop();
  await watching;
  assert.deepEqual([...markedFailed].sort(), ['orphan-0', 'orphan-1', 'orphan-2'], 'each was marked Failed first');
  for (const [name, at] of deletedAt)
    assert.ok(at - t0 >= QUARANTINE_MS, `${name} deleted ${at - t0} ms after its node, before the quarantine`);
});
