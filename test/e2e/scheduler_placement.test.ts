/**
 * Placement plugins against a real server: PodTopologySpread (hard and
 * soft), InterPodAffinity (affinity and anti-affinity) and bin-packing with
 * MostAllocated from a KubeSchedulerConfiguration file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, podManifest, podsOf, startCluster, until, waitBound } from './scheduler_helpers.js';

const zones = (
  n: number,
  perZone: number,
  cpu = '8',
): Record<string, { cpu: string; labels: Record<string, string> }> => {
  const out: Record<string, { cpu: string; labels: Record<string, string> }> = {};
  for (let z = 0; z < n; z++)
    for (let i = 0; i < perZone; i++) out[`z${z}-n${i}`] = { cpu, labels: { 'topology.kubernetes.io/zone': `z${z}` } };
  return out;
};

test(
  'PodTopologySpread keeps maxSkew 1 across zones, honours node affinity, and soft spreading balances',
  { timeout: 90_000 },
  async () => {
    const c = await startCluster(zones(3, 2));
    try {
      const pods = podsOf(c.rest);
      const spread = (when: string) => ({
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: when,
            labelSelector: { matchLabels: { app: 'web' } },
          },
        ],
      });
      const names = Array.from({ length: 9 }, (_, i) => `w${i}`);
      for (const n of names)
        await pods.create(podManifest(n, { cpu: '100m', labels: { app: 'web' }, spec: spread('DoNotSchedule') }));
      const m = await waitBound(c.rest, names);
      const perZone = new Map<string, number>();
      for (const n of names) perZone.set(m.get(n)!.split('-')[0], (perZone.get(m.get(n)!.split('-')[0]) ?? 0) + 1);
      assert.deepEqual([...perZone.values()], [3, 3, 3], JSON.stringify([...perZone]));
      // Only zone z0 may take a pod now that z1 and z2 are full: a pod pinned to z1 breaks the skew.
      await pods.create(
        podManifest('pinned', {
          cpu: '100m',
          labels: { app: 'web' },
          spec: { ...spread('DoNotSchedule'), nodeSelector: { 'topology.kubernetes.io/zone': 'z1' } },
        }),
      );
      await pods.create(podManifest('free', { cpu: '100m', labels: { app: 'web' }, spec: spread('DoNotSchedule') }));
      await waitBound(c.rest, ['free']);
      // With nodeAffinityPolicy Honor, z1 is the only domain for the pinned pod, so it fits there (skew within its own domains).
      await waitBound(c.rest, ['pinned']);
      // Soft spreading prefers the emptiest zone.
      const soft = podManifest('soft', { cpu: '100m', labels: { app: 'web' }, spec: spread('ScheduleAnyway') });
      await pods.create(soft);
      const after = await waitBound(c.rest, ['soft']);
      const counts = new Map<string, number>();
      for (const [, node] of after)
        if (node !== '') counts.set(node.split('-')[0], (counts.get(node.split('-')[0]) ?? 0) + 1);
      assert.ok(
        Math.max(...counts.values()) - Math.min(...counts.values()) <= 1,
        `zones stay balanced: ${JSON.stringify([...counts])}`,
      );
    } finally {
      await c.stop();
    }
  },
);

test('PodTopologySpread rejects a pod whose only open domain would exceed maxSkew', { timeout: 60_000 }, async () => {
  // Rack r1's only node is cordoned: it still counts as a domain (nodeTaintsPolicy Ignore), holding 0 pods.
  const c = await startCluster({
    a: { cpu: '8', labels: { rack: 'r1' }, unschedulable: true },
    b: { cpu: '8', labels: { rack: 'r2' } },
  });
  try {
    const pods = podsOf(c.rest);
    for (const n of ['d0', 'd1']) await pods.create(podManifest(n, { cpu: '100m', labels: { app: 'db' } }));
    await waitBound(c.rest, ['d0', 'd1']);
    const tsc = [
      {
        maxSkew: 1,
        topologyKey: 'rack',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'db' } },
      },
    ];
    await pods.create(
      podManifest('d2', { cpu: '100m', labels: { app: 'db' }, spec: { topologySpreadConstraints: tsc } }),
    );
    const ev = await until('d2 rejected', async () =>
      (await eventsOf(c.rest)).find((e) => e.name === 'd2' && e.reason === 'FailedScheduling'),
    );
    assert.match(ev.message, /1 node\(s\) didn't match pod topology spread constraints/);
    assert.match(ev.message, /1 node\(s\) were unschedulable/);
    // Without the constraint the same pod fits at once.
    await pods.create(podManifest('d3', { cpu: '100m', labels: { app: 'db' } }));
    assert.equal((await waitBound(c.rest, ['d3'])).get('d3'), 'b');
  } finally {
    await c.stop();
  }
});

test(
  'InterPodAffinity: anti-affinity keeps replicas apart, affinity co-locates, and a pod that cannot be apart waits',
  { timeout: 60_000 },
  async () => {
    const c = await startCluster({ a: {}, b: {}, c: {} });
    try {
      const pods = podsOf(c.rest);
      const anti = {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
      };
      const names = ['c0', 'c1', 'c2'];
      for (const n of names) await pods.create(podManifest(n, { cpu: '100m', labels: { app: 'cache' }, spec: anti }));
      const m = await waitBound(c.rest, names);
      assert.equal(new Set(names.map((n) => m.get(n))).size, 3, `one cache pod per node: ${JSON.stringify([...m])}`);
      await pods.create(podManifest('c3', { cpu: '100m', labels: { app: 'cache' }, spec: anti }));
      const ev = await until('c3 rejected', async () =>
        (await eventsOf(c.rest)).find((e) => e.name === 'c3' && e.reason === 'FailedScheduling'),
      );
      assert.match(
        ev.message,
        /3 node\(s\) didn't match pod anti-affinity rules|3 node\(s\) didn't satisfy existing pods anti-affinity rules/,
      );
      // A pod without anti-affinity of its own is still kept off by the existing pods' terms (symmetry).
      await pods.create(podManifest('plain-cache', { cpu: '100m', labels: { app: 'cache' } }));
      const ev2 = await until('plain-cache rejected', async () =>
        (await eventsOf(c.rest)).find((e) => e.name === 'plain-cache' && e.reason === 'FailedScheduling'),
      );
      assert.match(ev2.message, /3 node\(s\) didn't satisfy existing pods anti-affinity rules/);
      const aff = {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
      };
      await pods.delete('c1', { namespace: 'default', gracePeriodSeconds: 0 });
      await pods.create(podManifest('web', { cpu: '100m', labels: { app: 'web' }, spec: aff }));
      const w = await waitBound(c.rest, ['web']);
      assert.ok([m.get('c0'), m.get('c2')].includes(w.get('web')), 'web lands beside a cache pod');
    } finally {
      await c.stop();
    }
  },
);

test('bin-packing with MostAllocated fills one node before the next', { timeout: 60_000 }, async () => {
  const config = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 1
        - name: nvidia.com/gpu
          weight: 3
`;
  const c = await startCluster(
    { g1: { cpu: '8', gpu: 4 }, g2: { cpu: '8', gpu: 4 }, g3: { cpu: '8', gpu: 4 } },
    { config },
  );
  try {
    const pods = podsOf(c.rest);
    const names = Array.from({ length: 8 }, (_, i) => `t${i}`);
    for (const n of names) {
      await pods.create(podManifest(n, { cpu: '1', gpu: 1 }));
      await waitBound(c.rest, [n]);
    }
    const m = await waitBound(c.rest, names);
    const perNode = new Map<string, number>();
    for (const n of names) perNode.set(m.get(n)!, (perNode.get(m.get(n)!) ?? 0) + 1);
    assert.deepEqual(
      [...perNode.values()].sort(),
      [4, 4],
      `two full nodes, one empty: ${JSON.stringify([...perNode])}`,
    );
  } finally {
    await c.stop();
  }
});
