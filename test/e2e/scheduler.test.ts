/**
 * `kscale scheduler` against a real `kscale server`: filters (resources,
 * extended resources, taints, node affinity), scores (LeastAllocated
 * spreading, preferred affinity), Events, PodScheduled=False, metrics and a
 * clean exit on SIGTERM. Nodes and pods are created through the API server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createNode,
  eventsOf,
  placements,
  podManifest,
  podsOf,
  startCluster,
  until,
  waitBound,
} from './scheduler_helpers.js';

test(
  'pods are spread by LeastAllocated, bound with Scheduled events, and a pod too big stays pending as Unschedulable',
  { timeout: 60_000 },
  async () => {
    const c = await startCluster({ a: { cpu: '4' }, b: { cpu: '4' } });
    try {
      const pods = podsOf(c.rest);
      for (let i = 0; i < 4; i++) await pods.create(podManifest(`p${i}`, { cpu: '1' }));
      const m = await waitBound(c.rest, ['p0', 'p1', 'p2', 'p3']);
      const perNode = [...m.values()].reduce((acc, n) => acc.set(n, (acc.get(n) ?? 0) + 1), new Map<string, number>());
      assert.deepEqual(
        [...perNode.values()].sort(),
        [2, 2],
        `LeastAllocated spreads 4 equal pods 2/2: ${JSON.stringify([...m])}`,
      );
      await pods.create(podManifest('huge', { cpu: '3' }));
      const cond = await until('PodScheduled=False', async () => {
        const p = (await pods.get('huge', { namespace: 'default' })) as {
          status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
        };
        return p.status?.conditions?.find((x) => x.type === 'PodScheduled' && x.status === 'False');
      });
      assert.equal(cond.reason, 'Unschedulable');
      assert.match(cond.message ?? '', /0\/2 nodes are available: 2 Insufficient cpu/);
      const evs = await until('events', async () => {
        const e = await eventsOf(c.rest);
        return e.some((x) => x.reason === 'FailedScheduling') && e.filter((x) => x.reason === 'Scheduled').length >= 4
          ? e
          : undefined;
      });
      assert.ok(evs.every((e) => e.source === 'default-scheduler'));
      assert.match(
        evs.find((e) => e.name === 'p0' && e.reason === 'Scheduled')!.message,
        /Successfully assigned default\/p0 to [ab]/,
      );
      // Room appears (a new node): the pending pod moves back from the unschedulable set and binds.
      await createNode(c.rest, 'big', { cpu: '8' });
      const after = await waitBound(c.rest, ['huge']);
      assert.equal(after.get('huge'), 'big');
      const metrics = (await c.scheduler.get('/metrics')).text;
      assert.match(metrics, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 5/);
      assert.match(
        metrics,
        /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]/,
      );
      for (const name of [
        'scheduler_scheduling_attempt_duration_seconds_bucket',
        'scheduler_pending_pods{queue="active"}',
        'scheduler_pod_scheduling_sli_duration_seconds_bucket',
      ])
        assert.ok(metrics.includes(name), name);
      assert.equal((await c.scheduler.get('/healthz')).text, 'ok');
    } finally {
      await c.stop();
    }
    assert.equal(c.scheduler.p.exitCode, 0, 'exits 0 on SIGTERM');
  },
);

test('extended resources: GPU pods land only on nodes with free nvidia.com/gpu', { timeout: 60_000 }, async () => {
  const c = await startCluster({ cpu1: { cpu: '32' }, cpu2: { cpu: '32' }, gpu1: { cpu: '32', gpu: 4 } });
  try {
    const pods = podsOf(c.rest);
    for (let i = 0; i < 2; i++) await pods.create(podManifest(`g${i}`, { cpu: '1', gpu: 2 }));
    await pods.create(podManifest('g2', { cpu: '1', gpu: 1 }));
    const m = await waitBound(c.rest, ['g0', 'g1']);
    assert.equal(m.get('g0'), 'gpu1');
    assert.equal(m.get('g1'), 'gpu1');
    await until('g2 rejected', async () =>
      (await eventsOf(c.rest)).find((e) => e.name === 'g2' && /Insufficient nvidia.com\/gpu/.test(e.message)),
    );
    assert.equal((await placements(c.rest)).get('g2'), '');
  } finally {
    await c.stop();
  }
});

test(
  'taints repel pods without a toleration, and NoSchedule taints are tolerated when the pod says so',
  { timeout: 60_000 },
  async () => {
    const c = await startCluster({
      tainted: { taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] },
      plain: { cpu: '1' },
    });
    try {
      const pods = podsOf(c.rest);
      for (let i = 0; i < 3; i++) await pods.create(podManifest(`n${i}`, { cpu: '300m' }));
      const toleration = {
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }],
        nodeSelector: { 'kubernetes.io/hostname': 'tainted' },
      };
      await pods.create(podManifest('tol', { cpu: '300m', spec: toleration }));
      const m = await waitBound(c.rest, ['n0', 'n1', 'n2', 'tol']);
      for (const n of ['n0', 'n1', 'n2']) assert.equal(m.get(n), 'plain');
      assert.equal(m.get('tol'), 'tainted');
      await pods.create(podManifest('n3', { cpu: '300m' }));
      const ev = await until('n3 rejected', async () =>
        (await eventsOf(c.rest)).find((e) => e.name === 'n3' && e.reason === 'FailedScheduling'),
      );
      assert.match(ev.message, /1 Insufficient cpu/);
      assert.match(ev.message, /1 node\(s\) had untolerated taint \{dedicated: ml\}/);
    } finally {
      await c.stop();
    }
  },
);

test(
  'node affinity: required terms filter nodes and preferred terms win among the rest',
  { timeout: 60_000 },
  async () => {
    const c = await startCluster({
      x1: { labels: { disk: 'ssd', zone: 'x' } },
      x2: { labels: { disk: 'hdd', zone: 'x' } },
      y1: { labels: { disk: 'ssd', zone: 'y' } },
    });
    try {
      const pods = podsOf(c.rest);
      const affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['y'] }] } },
          ],
        },
      };
      for (let i = 0; i < 3; i++) await pods.create(podManifest(`a${i}`, { cpu: '100m', spec: { affinity } }));
      await pods.create(podManifest('nowhere', { spec: { nodeSelector: { disk: 'nvme' } } }));
      const m = await waitBound(c.rest, ['a0', 'a1', 'a2']);
      for (const n of ['a0', 'a1', 'a2']) assert.equal(m.get(n), 'y1', 'preferred zone y wins over x1 (ssd too)');
      const ev = await until('nowhere rejected', async () =>
        (await eventsOf(c.rest)).find((e) => e.name === 'nowhere' && e.reason === 'FailedScheduling'),
      );
      assert.match(ev.message, /3 node\(s\) didn't match Pod's node affinity\/selector/);
    } finally {
      await c.stop();
    }
  },
);
