import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../client/index.js';
import { FakeClock } from '../clock/index.js';
import { PodIPAllocator } from './pod_ips.js';
import { PodWorkers, type PodAPI } from './pod_worker.js';
import { TimerQueue } from './timer_queue.js';
import type { Pod } from '../api/index.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

class FakePods implements PodAPI {
  calls: { op: string; name: string; body?: unknown }[] = [];
  /** The resourceVersion of the last write, as the server would return it. */
  rv = 100;
  async patchPodStatus(_ns: string, name: string, patch: unknown): Promise<unknown> {
    this.calls.push({ op: 'patch', name, body: patch });
    return { metadata: { resourceVersion: String(++this.rv) } };
  }
  async deletePod(_ns: string, name: string, uid: string): Promise<unknown> {
    this.calls.push({ op: 'delete', name, body: uid });
    return {};
  }
}

function setup(): { clock: FakeClock; api: FakePods; w: PodWorkers; ips: PodIPAllocator } {
  const clock = new FakeClock();
  const api = new FakePods();
  const ips = new PodIPAllocator('10.64.0.0/24');
  const w = new PodWorkers({
    api,
    ips,
    queue: new TimerQueue(clock),
    clock,
    hostIP: '172.16.0.1',
    startupLatency: () => 1_000,
    jobPodRuntimeMs: 30_000,
    logger: silentLogger,
  });
  return { clock, api, w, ips };
}

const pod = (name: string, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...(extra.metadata ?? {}) },
  spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Pending', ...(extra.status ?? {}) },
});

async function step(clock: FakeClock, ms: number): Promise<void> {
  clock.step(ms);
  await flush();
}

test('a new pod becomes Running after its start-up latency, with an IP from the node CIDR', async () => {
  const { clock, api, w } = setup();
  w.sync(pod('a'));
  await step(clock, 999);
  assert.equal(api.calls.length, 0);
  await step(clock, 1);
  assert.equal(api.calls.length, 1);
  const st = api.calls[0]!.body as { metadata: { uid: string }; status: Record<string, unknown> };
  assert.equal(st.metadata.uid, 'uid-a');
  assert.equal(st.status.phase, 'Running');
  assert.equal(st.status.podIP, '10.64.0.1');
  assert.deepEqual(
    (st.status.conditions as { type: string }[]).map((c) => c.type),
    ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'],
  );
  w.sync(pod('a', { status: { phase: 'Running', podIP: '10.64.0.1' } }));
  await step(clock, 60_000);
  assert.equal(api.calls.length, 1, 'the watch echo of our own write changes nothing');
});

test('a pod owned by a Job succeeds after the run time', async () => {
  const { clock, api, w, ips } = setup();
  w.sync(
    pod('j', {
      metadata: { name: 'j', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'job', uid: 'u' }] },
    }),
  );
  await step(clock, 1_000);
  await step(clock, 30_000);
  assert.equal(api.calls.length, 2);
  const st = (
    api.calls[1]!.body as {
      status: { phase: string; containerStatuses: { state: { terminated: { exitCode: number } } }[] };
    }
  ).status;
  assert.equal(st.phase, 'Succeeded');
  assert.equal(st.containerStatuses[0]!.state.terminated.exitCode, 0);
  assert.equal(ips.size, 0, 'the IP is released');
});

test('a Job pod with the simulated-exit-code annotation fails with that exit code', async () => {
  const { clock, api, w } = setup();
  const owner = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'job', uid: 'u' }];
  w.sync(
    pod('f', {
      metadata: { name: 'f', ownerReferences: owner, annotations: { 'kscale.io/simulated-exit-code': '3' } },
    }),
  );
  await step(clock, 1_000);
  await step(clock, 30_000);
  const st = (
    api.calls[1]!.body as {
      status: { phase: string; containerStatuses: { state: { terminated: { exitCode: number; reason: string } } }[] };
    }
  ).status;
  assert.equal(st.phase, 'Failed');
  assert.deepEqual(
    [st.containerStatuses[0]!.state.terminated.exitCode, st.containerStatuses[0]!.state.terminated.reason],
    [3, 'Error'],
  );
});

test('graceful deletion terminates the containers, then deletes with grace 0 and the uid', async () => {
  const { clock, api, w, ips } = setup();
  w.sync(pod('d'));
  await step(clock, 1_000);
  w.sync(
    pod('d', { metadata: { name: 'd', deletionTimestamp: '2026-01-01T00:00:30Z' }, status: { phase: 'Running' } }),
  );
  await flush();
  assert.deepEqual(
    api.calls.map((c) => c.op),
    ['patch', 'patch', 'delete'],
  );
  assert.equal((api.calls[1]!.body as { status: { phase: string } }).status.phase, 'Succeeded');
  assert.equal(api.calls[2]!.body, 'uid-d');
  w.forget(pod('d'));
  assert.equal(ips.size, 0);
  assert.equal(w.size, 0);
});

test('a pod deleted before it started is deleted without a status write', async () => {
  const { clock, api, w } = setup();
  w.sync(pod('e'));
  w.sync(pod('e', { metadata: { name: 'e', deletionTimestamp: '2026-01-01T00:00:30Z' } }));
  await step(clock, 5_000);
  assert.deepEqual(
    api.calls.map((c) => c.op),
    ['delete'],
  );
});

test('a paused (killed) node does nothing; on resume it adopts running pods and starts pending ones', async () => {
  const { clock, api, w, ips } = setup();
  w.sync(pod('p'));
  w.pause();
  w.sync(pod('q'));
  await step(clock, 10_000);
  assert.equal(api.calls.length, 0);
  w.resume([pod('p'), pod('r', { status: { phase: 'Running', podIP: '10.64.0.7' } })]);
  assert.equal(ips.size, 1, 'the running pod keeps its IP');
  await step(clock, 1_000);
  assert.deepEqual(
    api.calls.map((c) => c.name),
    ['p'],
  );
  assert.notEqual((api.calls[0]!.body as { status: { podIP: string } }).status.podIP, '10.64.0.7');
});

test('a running pod whose Ready condition the node controller set to False gets its status back, once', async () => {
  const { clock, api, w } = setup();
  w.sync(pod('r'));
  await step(clock, 1_000);
  assert.equal(api.calls.length, 1);
  const written = api.rv;
  const notReady = (rv: number): Pod =>
    pod('r', {
      metadata: { name: 'r', resourceVersion: String(rv) },
      status: {
        phase: 'Running',
        podIP: '10.64.0.1',
        conditions: [
          { type: 'Ready', status: 'False', reason: 'NodeNotReady' },
          { type: 'ContainersReady', status: 'True' },
        ],
      },
    });
  // An event from before our own write is the watch lagging, not a change to undo.
  w.sync(notReady(written - 1));
  await step(clock, 10);
  assert.equal(api.calls.length, 1);
  w.sync(notReady(written + 5));
  w.sync(notReady(written + 6)); // a second event before the first reconcile ran: still one write
  await step(clock, 10);
  assert.equal(api.calls.length, 2);
  const st = api.calls[1]!.body as { status: { phase: string; conditions: { type: string; status: string }[] } };
  assert.equal(st.status.phase, 'Running');
  assert.equal(st.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(w.stats.reconciled, 1);
  // The echo of that write, and the pod's later events, change nothing.
  w.sync(pod('r', { metadata: { name: 'r', resourceVersion: String(api.rv) }, status: { phase: 'Running' } }));
  await step(clock, 60_000);
  assert.equal(api.calls.length, 2);
});
