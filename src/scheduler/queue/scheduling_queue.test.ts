import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { ActionType, type ClusterEventWithHint, type PreEnqueuePlugin } from '../framework/interface.js';
import { newPodInfo, type PodInfo } from '../framework/pod_info.js';
import { Code, pluginStatus } from '../framework/status.js';
import { prioritySort } from '../plugins/queuesort/index.js';
import { schedulingGates } from '../plugins/schedulinggates/index.js';
import { SchedulingQueue } from './scheduling_queue.js';

const pod = (name: string, priority = 0, labels: Record<string, string> = {}): PodInfo =>
  newPodInfo({ metadata: { name, namespace: 'ns', uid: name, labels }, spec: { priority, containers: [] } });

function queue(
  clock: FakeClock,
  opts: { preEnqueue?: PreEnqueuePlugin[]; events?: Map<string, ClusterEventWithHint[]> } = {},
): SchedulingQueue {
  const sort = prioritySort();
  return new SchedulingQueue({
    clock,
    less: (a, b) => sort.less(a, b),
    preEnqueue: () => opts.preEnqueue ?? [],
    events: () => opts.events ?? new Map(),
  });
}

test('the active queue pops by priority, then by arrival', () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.add(pod('a', 1));
  clock.step(1);
  q.add(pod('b', 5));
  clock.step(1);
  q.add(pod('c', 1));
  assert.deepEqual(
    [q.tryPop(), q.tryPop(), q.tryPop()].map((x) => x?.podInfo.name),
    ['b', 'a', 'c'],
  );
  assert.equal(q.tryPop(), undefined);
});

test('an unschedulable pod returns only on an event its rejecting plugin registered for, honouring its hint', () => {
  const clock = new FakeClock();
  const events = new Map<string, ClusterEventWithHint[]>([
    [
      'Fit',
      [
        {
          event: { resource: 'Node', action: ActionType.Add },
          hint: (_p, _o, n) => (n as { ok?: boolean }).ok === true,
        },
      ],
    ],
  ]);
  const q = queue(clock, { events });
  q.add(pod('a'));
  const a = q.tryPop()!;
  a.unschedulablePlugins.add('Fit');
  q.addUnschedulableIfNotPresent(a, q.cycle);
  assert.deepEqual(q.pending(), { active: 0, backoff: 0, unschedulable: 1, gated: 0 });
  q.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', action: ActionType.Delete }, undefined, {});
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', action: ActionType.Add }, undefined, { ok: false });
  assert.equal(q.pending().unschedulable, 1, 'unrelated events and a negative hint leave it');
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', action: ActionType.Add }, undefined, { ok: true });
  // Its backoff (1 s after one attempt) has not expired: it waits in backoffQ first.
  assert.deepEqual(q.pending(), { active: 0, backoff: 1, unschedulable: 0, gated: 0 });
  clock.step(1_000);
  q.flushBackoffCompleted();
  assert.equal(q.tryPop()?.podInfo.name, 'a');
});

test('an event during a pod attempt sends the failed pod to backoff, not unschedulable', () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.add(pod('a'));
  const a = q.tryPop()!;
  const cycle = q.cycle;
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', action: ActionType.Add }, undefined, {});
  a.unschedulablePlugins.add('Fit');
  q.addUnschedulableIfNotPresent(a, cycle);
  assert.deepEqual(q.pending(), { active: 0, backoff: 1, unschedulable: 0, gated: 0 });
});

test('backoff doubles per attempt up to podMaxBackoff, and the 5-minute backstop requeues unschedulable pods', () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.add(pod('a'));
  let a = q.tryPop()!;
  for (let attempt = 1; attempt <= 6; attempt++) {
    a.lastError = true;
    q.addUnschedulableIfNotPresent(a, q.cycle);
    const wait = Math.min(10_000, 1_000 * 2 ** (attempt - 1));
    clock.step(wait - 1);
    q.flushBackoffCompleted();
    assert.equal(q.pending().active, 0, `attempt ${attempt}: still backing off at ${wait - 1} ms`);
    clock.step(1);
    q.flushBackoffCompleted();
    a = q.tryPop()!;
    assert.equal(a.podInfo.name, 'a');
  }
  a.lastError = false;
  a.unschedulablePlugins.add('Fit');
  q.addUnschedulableIfNotPresent(a, q.cycle);
  clock.step(299_000);
  q.flushUnschedulableLeftover();
  assert.equal(q.pending().unschedulable, 1);
  clock.step(1_000);
  q.flushUnschedulableLeftover();
  assert.equal(q.pending().unschedulable, 0);
});

test('PreEnqueue gates a pod until an event its plugin registered for lets it through', () => {
  const clock = new FakeClock();
  let open = false;
  const gate: PreEnqueuePlugin = {
    name: 'Gate',
    preEnqueue: () => (open ? null : pluginStatus('Gate', Code.UnschedulableAndUnresolvable, 'closed')),
  };
  const events = new Map<string, ClusterEventWithHint[]>([
    ['Gate', [{ event: { resource: 'UnscheduledPod', action: ActionType.Add } }]],
  ]);
  const q = queue(clock, { preEnqueue: [gate], events });
  q.add(pod('a'));
  q.add(pod('b'));
  assert.deepEqual(q.pending(), { active: 0, backoff: 0, unschedulable: 0, gated: 2 });
  q.moveAllToActiveOrBackoffQueue({ resource: 'UnscheduledPod', action: ActionType.Add }, undefined, {});
  assert.equal(q.pending().gated, 2, 'still closed: re-gated, and the loop terminates');
  open = true;
  q.moveAllToActiveOrBackoffQueue({ resource: 'UnscheduledPod', action: ActionType.Add }, undefined, {});
  assert.deepEqual(q.pending(), { active: 2, backoff: 0, unschedulable: 0, gated: 0 });
});

test('activate moves pods from unschedulable and backoff to the active queue at once, and ignores others', () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.add(pod('u'));
  q.add(pod('b'));
  const [u, b] = [q.tryPop()!, q.tryPop()!];
  u.unschedulablePlugins.add('Fit');
  q.addUnschedulableIfNotPresent(u, q.cycle);
  b.lastError = true;
  q.addUnschedulableIfNotPresent(b, q.cycle);
  assert.deepEqual(q.pending(), { active: 0, backoff: 1, unschedulable: 1, gated: 0 });
  q.activate([u.podInfo, b.podInfo, pod('unknown')]);
  assert.deepEqual(q.pending(), { active: 2, backoff: 0, unschedulable: 0, gated: 0 });
});

test('an update gives a gated or unschedulable pod another try; delete removes a pod wherever it is', () => {
  const clock = new FakeClock();
  const gates = schedulingGates();
  const q = queue(clock, { preEnqueue: [gates] });
  const gated = (g: boolean): PodInfo =>
    newPodInfo({
      metadata: { name: 'g', namespace: 'ns', uid: 'g' },
      spec: { containers: [], ...(g ? { schedulingGates: [{ name: 'wait' }] } : {}) },
    });
  q.add(gated(true));
  q.add(pod('u'));
  const u = q.tryPop()!;
  u.unschedulablePlugins.add('Fit');
  q.addUnschedulableIfNotPresent(u, q.cycle);
  assert.deepEqual(q.pending(), { active: 0, backoff: 0, unschedulable: 1, gated: 1 });
  q.update(gated(false));
  q.update(pod('u'));
  const { active, backoff, unschedulable, gated: stillGated } = q.pending();
  assert.deepEqual([active + backoff, unschedulable, stillGated], [2, 0, 0], 'both are queued again');
  q.delete('ns/g');
  q.delete('ns/u');
  assert.deepEqual(q.pending(), { active: 0, backoff: 0, unschedulable: 0, gated: 0 });
  assert.equal(q.has('ns/u'), false);
});
