import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES } from '../../../client/index.js';
import { CycleState } from '../../framework/cycle_state.js';
import { SCHEDULER_POD_SCOPE, type QueuedPodInfo, type WaitingPod } from '../../framework/interface.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code } from '../../framework/status.js';
import type { Pod } from '../../../api/index.js';
import { fakeHandle, makeNode, makePod, makeSnapshot, reasonOf } from '../../testing/wrappers.js';
import { coscheduling, PODGROUPS, POD_GROUP_LABEL, type PodGroup } from './index.js';

const member = (name: string, group = 'g', extra: { priority?: number; deleting?: boolean } = {}): PodInfo => {
  const p = makePod(name, { labels: { [POD_GROUP_LABEL]: group }, spec: { priority: extra.priority ?? 0 } });
  if (extra.deleting === true) p.pod.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
  return p;
};
const group = (name: string, minMember: number, extra: { timeout?: number; created?: string } = {}): PodGroup => ({
  metadata: { name, namespace: 'default', uid: name, creationTimestamp: extra.created ?? '2026-01-01T00:00:00Z' },
  spec: { minMember, ...(extra.timeout !== undefined ? { scheduleTimeoutSeconds: extra.timeout } : {}) },
});

/** A Coscheduling plugin whose informers (never started) hold `groups` and `pods`; waiting pods are recorded. */
function setup(groups: PodGroup[], pods: PodInfo[]) {
  const snap = makeSnapshot([makeNode('n1')]);
  const waiting: WaitingPod[] = [];
  const handle = fakeHandle(snap, { waitingPods: () => waiting });
  const plugin = coscheduling({}, handle);
  const informers = handle.informerFactory();
  for (const g of groups) informers.informerFor<PodGroup>(PODGROUPS).indexer.add(g);
  for (const p of pods) informers.informerFor<Pod>(RESOURCES.pods, SCHEDULER_POD_SCOPE).indexer.add(p.pod);
  return { snap, plugin, waiting };
}

/** A WaitingPod that records what the plugin decided. */
function waitingPod(pod: PodInfo, log: string[]): WaitingPod {
  return {
    pod,
    nodeName: 'n1',
    pendingPlugins: () => ['Coscheduling'],
    allow: () => void log.push(`allow ${pod.name}`),
    reject: (_p, m) => void log.push(`reject ${pod.name}: ${m}`),
  };
}

const preFilterCases: { name: string; groups: PodGroup[]; pods: PodInfo[]; pod: PodInfo; want: string }[] = [
  { name: 'a pod outside any group passes', groups: [], pods: [], pod: makePod('solo'), want: '' },
  {
    name: 'a pod of an unknown group waits',
    groups: [],
    pods: [member('a')],
    pod: member('a'),
    want: 'PodGroup default/g not found',
  },
  {
    name: 'fewer members than minMember wait',
    groups: [group('g', 3)],
    pods: [member('a'), member('b')],
    pod: member('a'),
    want: 'pre-enqueue: the group default/g has 2 pods, less than minMember 3',
  },
  {
    name: 'minMember members exist: pass',
    groups: [group('g', 3)],
    pods: [member('a'), member('b'), member('c')],
    pod: member('a'),
    want: '',
  },
  {
    name: 'members being deleted do not count',
    groups: [group('g', 3)],
    pods: [member('a'), member('b'), member('c', 'g', { deleting: true })],
    pod: member('a'),
    want: 'pre-enqueue: the group default/g has 2 pods, less than minMember 3',
  },
  {
    name: 'members of another group do not count',
    groups: [group('g', 2), group('h', 1)],
    pods: [member('a'), member('x', 'h')],
    pod: member('a'),
    want: 'pre-enqueue: the group default/g has 1 pods, less than minMember 2',
  },
];

for (const c of preFilterCases) {
  test(`Coscheduling PreFilter and PreEnqueue: ${c.name}`, () => {
    const { snap, plugin } = setup(c.groups, c.pods);
    const pre = plugin.preFilter(new CycleState(), c.pod, snap);
    assert.equal(reasonOf(pre), c.want);
    if (pre !== null) assert.equal(pre.code, Code.UnschedulableAndUnresolvable);
    assert.equal(reasonOf(plugin.preEnqueue(c.pod)), c.want);
  });
}

test('Coscheduling Permit: members wait until minMember are reserved, then the last allows them all', () => {
  const a = member('a');
  const b = member('b');
  const { snap, plugin, waiting } = setup([group('g', 2, { timeout: 30 })], [a, b, member('c')]);
  const log: string[] = [];
  snap.assumePod(a, 'n1');
  const first = plugin.permit(new CycleState(), a, 'n1');
  assert.deepEqual(
    [first.status?.code, first.timeoutMs],
    [Code.Wait, 30_000],
    'the group\u2019s scheduleTimeoutSeconds',
  );
  waiting.push(waitingPod(a, log));
  snap.assumePod(b, 'n1');
  assert.deepEqual(plugin.permit(new CycleState(), b, 'n1'), { status: null, timeoutMs: 0 });
  assert.deepEqual(log, ['allow a']);
});

test('Coscheduling Permit: bound members count, the default wait is permitWaitingTimeSeconds, and pods outside groups pass', () => {
  const bound = member('bound');
  bound.pod.spec!.nodeName = 'n1';
  const a = member('a');
  const { snap, plugin } = setup([group('g', 3)], [bound, a, member('b')]);
  snap.assumePod(a, 'n1');
  const wait = plugin.permit(new CycleState(), a, 'n1');
  assert.deepEqual([wait.status?.code, wait.timeoutMs], [Code.Wait, 60_000]);
  assert.deepEqual(plugin.permit(new CycleState(), makePod('solo'), 'n1'), { status: null, timeoutMs: 0 });
});

test('Coscheduling PostFilter and Unreserve: a member that cannot be placed rejects the waiting members of its group only', async () => {
  const [a, b, x] = [member('a'), member('b'), member('x', 'h')];
  const { plugin, waiting } = setup([group('g', 2), group('h', 2)], [a, b, x]);
  const log: string[] = [];
  waiting.push(waitingPod(a, log), waitingPod(x, log));
  const r = await plugin.postFilter(new CycleState(), b, new Map());
  assert.equal(r.status.code, Code.Unschedulable);
  assert.equal(
    r.status.message(),
    'PodGroup default/g gets rejected due to Pod b being unschedulable even after PostFilter',
  );
  plugin.unreserve(new CycleState(), b, 'n1');
  assert.deepEqual(log, [
    'reject a: PodGroup default/g rejected: pod b is unschedulable',
    'reject a: PodGroup default/g rejected: member b was unreserved',
  ]);
});

test('Coscheduling QueueSort: priority first, then the group\u2019s creation time, so one gang\u2019s pods stay together', () => {
  const { plugin } = setup(
    [group('early', 1, { created: '2026-01-01T00:00:00Z' }), group('late', 1, { created: '2026-01-02T00:00:00Z' })],
    [],
  );
  const queued = (p: PodInfo, t: number): QueuedPodInfo => ({
    podInfo: p,
    timestamp: t,
    initialAttemptTimestamp: t,
    attempts: 0,
    unschedulablePlugins: new Set(),
    gatingPlugin: undefined,
    lastError: false,
  });
  const lateFirst = queued(member('l1', 'late'), 1);
  const early = queued(member('e1', 'early'), 2);
  const important = queued(member('i1', 'late', { priority: 10 }), 3);
  assert.equal(plugin.less(early, lateFirst), true, 'the older group goes first even though its pod was queued later');
  assert.equal(plugin.less(lateFirst, early), false);
  assert.equal(plugin.less(important, early), true, 'priority outranks group age');
});

test('Coscheduling registers for PodGroup events by resource.version.group, and its hints select the group\u2019s pods', () => {
  const { plugin } = setup([], []);
  const events = plugin.eventsToRegister();
  const pg = events.find((e) => e.event.resource === 'podgroups.v1alpha1.scheduling.x-k8s.io');
  assert.ok(pg !== undefined);
  const a = member('a');
  assert.equal(pg.hint!(a, undefined, group('g', 1)), true);
  assert.equal(pg.hint!(a, undefined, group('other', 1)), false);
});
