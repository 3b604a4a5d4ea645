/**
 * A failed binding un-assumes the pod and requeues it: the scheduler runs in
 * this process against a real server, with a Bind plugin that fails its
 * first call. The only node has room for exactly one pod, so the retry can
 * only succeed if the failed attempt's reservation was released.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBroadcaster, RESOURCES, silentLogger, type KubeObject } from '../../src/client/index.js';
import { RealClock } from '../../src/clock/index.js';
import {
  Code,
  inTreeRegistry,
  newStatus,
  resolveProfiles,
  Scheduler,
  SUCCESS,
  type BindPlugin,
} from '../../src/scheduler/index.js';
import { startServer } from './harness.js';
import { clientFor, createNode, eventsOf, podManifest, podsOf, until, waitBound } from './scheduler_helpers.js';

test('a failed binding un-assumes the pod and requeues it, and the retry binds', { timeout: 60_000 }, async () => {
  const srv = await startServer();
  const rest = clientFor(srv.kubeconfig);
  const clock = new RealClock();
  const events = new EventBroadcaster(rest, { clock });
  let calls = 0;
  const registry = inTreeRegistry();
  registry.set('FlakyBinder', (_args, handle): BindPlugin => ({
    name: 'FlakyBinder',
    async bind(_state, pod, node) {
      calls++;
      if (calls === 1) return newStatus(Code.Error, 'injected bind failure');
      await handle.client.resource<KubeObject>(RESOURCES.pods).bind(pod.name, pod.namespace, node);
      return SUCCESS;
    },
  }));
  const profiles = resolveProfiles(
    { profiles: [{ plugins: { bind: { enabled: [{ name: 'FlakyBinder' }], disabled: [{ name: '*' }] } } }] },
    registry,
  );
  const sched = new Scheduler({
    client: rest,
    recorder: events.newRecorder({ component: 'default-scheduler' }),
    clock,
    logger: silentLogger,
    profiles,
    registry,
  });
  try {
    await createNode(rest, 'only', { cpu: '1' });
    assert.ok(await sched.startInformers());
    sched.run();
    await podsOf(rest).create(podManifest('p', { cpu: '1' }));
    const m = await waitBound(rest, ['p'], 30_000);
    assert.equal(m.get('p'), 'only');
    assert.equal(calls, 2, 'bound on the second attempt');
    await until(
      'cache confirmed',
      async () => sched.cache.podCounts().assumed === 0 && sched.cache.podCounts().pods === 1,
    );
    const ev = await until('FailedScheduling for the bind error', async () =>
      (await eventsOf(rest)).find((e) => e.reason === 'FailedScheduling'),
    );
    assert.match(ev.message, /injected bind failure/);
  } finally {
    await sched.stop();
    await events.shutdown();
    rest.close();
    await srv.stop();
  }
});
