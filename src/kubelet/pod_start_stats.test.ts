import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../client/index.js';
import { FakeClock } from '../clock/index.js';
import { PodIPAllocator } from './pod_ips.js';
import { PodStartStats } from './pod_start_stats.js';
import { PodWorkers } from './pod_worker.js';
import { TimerQueue } from './timer_queue.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

test('PodStartStats gives nearest-rank percentiles and keeps only the newest samples past its cap', () => {
  const s = new PodStartStats(100);
  for (let i = 1; i <= 100; i++) s.record(i, 1000 + i);
  let snap = s.snapshot();
  assert.deepEqual([snap.lateness.p50, snap.lateness.p90, snap.lateness.p99, snap.lateness.max], [50, 90, 99, 100]);
  assert.equal(snap.statusPatch.p99, 1099);
  s.record(500, 5000);
  snap = s.snapshot();
  assert.equal(snap.lateness.count, 101);
  assert.equal(snap.lateness.p50, 51, 'the oldest sample (1) was overwritten, so the 50th of 2..100,500 is 51');
  assert.equal(snap.lateness.max, 500);
  s.record(-5, 0);
  assert.equal(s.snapshot().lateness.p50, 51, 'a negative lateness (clock skew) counts as 0, replacing sample 2');
  assert.equal(snap.statusPatch.max, 5000);
  assert.ok(snap.eventLoopDelay.count >= 0);
  s.stop();
});

test('a pod worker records how late its start ran and how long the Running PATCH took', async () => {
  const clock = new FakeClock();
  const stats = new PodStartStats();
  let release: (() => void) | undefined;
  const api = {
    patchPodStatus: () => new Promise<unknown>((ok) => (release = () => ok({}))),
    deletePod: async () => ({}),
  };
  const w = new PodWorkers({
    api,
    ips: new PodIPAllocator('10.64.0.0/24'),
    queue: new TimerQueue(clock),
    clock,
    hostIP: '172.16.0.1',
    startupLatency: () => 1_000,
    jobPodRuntimeMs: 30_000,
    logger: silentLogger,
    startStats: stats,
  });
  w.sync({
    metadata: { name: 'a', namespace: 'default', uid: 'u' },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Pending' },
  });
  clock.step(1_000);
  await flush();
  assert.ok(release !== undefined, 'the PATCH was sent when the start came due');
  clock.step(250);
  release!();
  await flush();
  const snap = stats.snapshot();
  assert.equal(snap.statusPatch.count, 1);
  assert.equal(snap.statusPatch.p50, 250);
  assert.equal(snap.lateness.p50, 0);
  stats.stop();
});
