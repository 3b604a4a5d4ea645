/**
 * Gang scheduling (Coscheduling with PodGroups) and preemption against a
 * real server, with hollow kubelets (`kscale nodes`) running the pods, so
 * preempted pods really terminate.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PODGROUPS } from '../../src/scheduler/index.js';
import { startFleet } from './fixtures/cluster.js';
import { startServer } from './harness.js';
import {
  clientFor,
  eventsOf,
  placements,
  podManifest,
  podsOf,
  startScheduler,
  until,
  waitBound,
} from './scheduler_helpers.js';

const GROUP = 'scheduling.x-k8s.io/pod-group';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function setup(fleetArgs: string[]) {
  const srv = await startServer();
  const rest = clientFor(srv.kubeconfig);
  const fleet = startFleet(srv.kubeconfig, fleetArgs);
  await fleet.registered;
  const sched = await startScheduler(srv.kubeconfig, ['--leader-elect=false']);
  return {
    srv,
    rest,
    fleets: [fleet],
    sched,
    async stop() {
      await sched.stop();
      for (const f of this.fleets) await f.stop();
      rest.close();
      await srv.stop();
    },
  };
}

const podGroup = (name: string, minMember: number) => ({
  apiVersion: 'scheduling.x-k8s.io/v1alpha1',
  kind: 'PodGroup',
  metadata: { name, namespace: 'default' },
  spec: { minMember, scheduleTimeoutSeconds: 5 },
});

test('a gang of 8 GPU pods on room for 6 binds none, and all 8 once room appears', { timeout: 90_000 }, async () => {
  const c = await setup(['--count', '3', '--gpus-per-node', '2', '--cpu', '16']);
  try {
    await c.rest.resource(PODGROUPS).create(podGroup('train', 8));
    const pods = podsOf(c.rest);
    const names = Array.from({ length: 8 }, (_, i) => `w${i}`);
    for (const n of names) await pods.create(podManifest(n, { cpu: '1', gpu: 1, labels: { [GROUP]: 'train' } }));
    // The scheduler tries the gang (a member fails to fit) and rejects the partial reservation.
    await until(
      'the gang is rejected',
      async () =>
        (await eventsOf(c.rest)).filter((e) => e.reason === 'FailedScheduling' && names.includes(e.name)).length >= 2,
      30_000,
    );
    await sleep(3_000);
    const before = await placements(c.rest);
    assert.deepEqual(
      names.filter((n) => before.get(n) !== ''),
      [],
      'no member of a gang that cannot fit is bound',
    );
    const room = startFleet(c.srv.kubeconfig, [
      '--count',
      '1',
      '--gpus-per-node',
      '2',
      '--cpu',
      '16',
      '--name-prefix',
      'extra-',
    ]);
    c.fleets.push(room);
    await room.registered;
    const after = await waitBound(c.rest, names, 45_000);
    const used = new Map<string, number>();
    for (const n of names) used.set(after.get(n)!, (used.get(after.get(n)!) ?? 0) + 1);
    assert.equal(used.size, 4);
    for (const [node, count] of used) assert.equal(count, 2, `node ${node} holds exactly its 2 GPUs`);
  } finally {
    await c.stop();
  }
});

test(
  'two competing gangs never deadlock: one binds whole, the other waits, then binds when room frees up',
  { timeout: 120_000 },
  async () => {
    const c = await setup(['--count', '4', '--gpus-per-node', '2', '--cpu', '16']);
    try {
      await c.rest.resource(PODGROUPS).create(podGroup('ga', 6));
      await c.rest.resource(PODGROUPS).create(podGroup('gb', 6));
      const pods = podsOf(c.rest);
      const a = Array.from({ length: 6 }, (_, i) => `a${i}`);
      const b = Array.from({ length: 6 }, (_, i) => `b${i}`);
      // Interleaved creation, so both gangs are pending at once.
      for (let i = 0; i < 6; i++) {
        await pods.create(podManifest(a[i], { cpu: '1', gpu: 1, labels: { [GROUP]: 'ga' } }));
        await pods.create(podManifest(b[i], { cpu: '1', gpu: 1, labels: { [GROUP]: 'gb' } }));
      }
      const bound = async (names: string[]): Promise<number> => {
        const m = await placements(c.rest);
        return names.filter((n) => (m.get(n) ?? '') !== '').length;
      };
      await until('one gang bound', async () => (await bound(a)) === 6 || (await bound(b)) === 6, 45_000);
      await sleep(3_000);
      const [na, nb] = [await bound(a), await bound(b)];
      assert.ok((na === 6 && nb === 0) || (na === 0 && nb === 6), `one whole gang, no partial one: a=${na} b=${nb}`);
      const [winner, loser] = na === 6 ? [a, b] : [b, a];
      for (const n of winner) await pods.delete(n, { namespace: 'default', gracePeriodSeconds: 0 });
      await waitBound(c.rest, loser, 60_000);
    } finally {
      await c.stop();
    }
  },
);

test('preemption evicts the fewest, least important victims and the preemptor binds', { timeout: 90_000 }, async () => {
  const c = await setup(['--count', '2', '--cpu', '4']);
  try {
    const pcs = c.rest.resource({
      group: 'scheduling.k8s.io',
      version: 'v1',
      resource: 'priorityclasses',
      namespaced: false,
    });
    for (const [name, value] of [
      ['p10', 10],
      ['p20', 20],
      ['p30', 30],
      ['p500', 500],
      ['p1000', 1000],
    ] as const)
      await pcs.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
    const pods = podsOf(c.rest);
    const on = (node: string, pc: string) => ({
      priorityClassName: pc,
      nodeSelector: { 'kubernetes.io/hostname': node },
    });
    await pods.create(podManifest('low10', { cpu: '1', spec: on('hollow-node-0', 'p10') }));
    await pods.create(podManifest('low20', { cpu: '2', spec: on('hollow-node-0', 'p20') }));
    await pods.create(podManifest('low30', { cpu: '1', spec: on('hollow-node-0', 'p30') }));
    await pods.create(podManifest('mid1', { cpu: '2', spec: on('hollow-node-1', 'p500') }));
    await pods.create(podManifest('mid2', { cpu: '2', spec: on('hollow-node-1', 'p500') }));
    await waitBound(c.rest, ['low10', 'low20', 'low30', 'mid1', 'mid2']);
    await pods.create(podManifest('high', { cpu: '2', spec: { priorityClassName: 'p1000' } }));
    const m = await waitBound(c.rest, ['high'], 45_000);
    assert.equal(m.get('high'), 'hollow-node-0', 'the node whose victims have the lowest priority');
    const left = await placements(c.rest);
    assert.equal(left.has('low20'), false, 'low20 (2 CPUs) is the only victim needed');
    for (const n of ['low10', 'low30', 'mid1', 'mid2']) assert.ok((left.get(n) ?? '') !== '', `${n} survives`);
    const ev = (await eventsOf(c.rest)).find((e) => e.reason === 'Preempted');
    assert.equal(ev?.name, 'low20');
    assert.match(ev!.message, /Preempted by pod .* on node hollow-node-0/);
  } finally {
    await c.stop();
  }
});
