/**
 * The scheduler's informers drop metadata.managedFields, like kube-scheduler's
 * informer factory: the scheduler runs in this process against a real server,
 * schedules as before, and its cached pods and nodes carry no managedFields
 * while the server's copies do.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBroadcaster, RESOURCES, silentLogger, type KubeObject } from '../../src/client/index.js';
import { RealClock } from '../../src/clock/index.js';
import { inTreeRegistry, resolveProfiles, Scheduler } from '../../src/scheduler/index.js';
import { startServer } from './harness.js';
import { clientFor, createNode, podManifest, podsOf, until, waitBound } from './scheduler_helpers.js';

test(
  'the scheduler caches pods and nodes without managedFields and still binds by resources',
  { timeout: 60_000 },
  async () => {
    const srv = await startServer();
    const rest = clientFor(srv.kubeconfig);
    const clock = new RealClock();
    const events = new EventBroadcaster(rest, { clock });
    const registry = inTreeRegistry();
    const sched = new Scheduler({
      client: rest,
      recorder: events.newRecorder({ component: 'default-scheduler' }),
      clock,
      logger: silentLogger,
      profiles: resolveProfiles({}, registry),
      registry,
    });
    try {
      await createNode(rest, 'small', { cpu: '1' });
      await createNode(rest, 'big', { cpu: '4' });
      assert.ok(await sched.startInformers());
      sched.run();
      await podsOf(rest).create(podManifest('p', { cpu: '2' }));
      const m = await waitBound(rest, ['p'], 30_000);
      assert.equal(m.get('p'), 'big', 'only the big node fits 2 CPUs');
      await until('the bound pod is confirmed in the cache', async () => sched.cache.podCounts().assumed === 0);
      const stored = await rest.resource<KubeObject>(RESOURCES.pods).get('p', { namespace: 'default' });
      assert.ok((stored.metadata?.managedFields ?? []).length > 0, 'the server tracks managedFields for the pod');
      const cached = await until('the informer holds the bound pod', async () => {
        const p = sched.podInformer.indexer.getByKey('default/p');
        return p?.spec?.nodeName === 'big' ? p : undefined;
      });
      assert.equal(cached.metadata?.managedFields, undefined, 'the cached pod has no managedFields');
      assert.equal(cached.metadata?.uid, stored.metadata?.uid);
      const nodes = sched.nodeInformer.indexer.list();
      assert.equal(nodes.length, 2);
      for (const n of nodes) assert.equal(n.metadata?.managedFields, undefined, `node ${n.metadata?.name}`);
    } finally {
      await sched.stop();
      await events.shutdown();
      rest.close();
      await srv.stop();
    }
  },
);
