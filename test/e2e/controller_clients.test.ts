/**
 * One client per controller, as kube-controller-manager's ClientBuilder
 * gives: against a real `kscale server`, two controllers' clients have
 * independent QPS/burst limiters (one waiting for a token never holds the
 * other back), and startControllers routes a controller's writes and its
 * Events through its own client, not the shared informers' one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventBroadcaster,
  loadKubeconfig,
  RESOURCES,
  RESTClient,
  SharedInformerFactory,
  silentLogger,
  type KubeObject,
} from '../../src/client/index.js';
import { FakeClock, RealClock } from '../../src/clock/index.js';
import {
  defaultControllerManagerConfiguration,
  newControllerDescriptors,
  SimpleControllerClientBuilder,
  startControllers,
} from '../../src/controller/index.js';
import { waitFor } from './fixtures/cluster.js';
import { startServer, type TestServer } from './harness.js';
import type { Pod, ReplicaSet } from '../../src/api/index.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** Resolves true if `p` settles within a few event-loop turns of real I/O, false if it is still pending. */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 300));
  return done;
}

test('two controllers built by the client builder have independent QPS/burst limiters (real server, real client)', async () => {
  const clock = new FakeClock();
  const builder = new SimpleControllerClientBuilder(
    { ...loadKubeconfig({ path: server.kubeconfig }), qps: 1, burst: 1, userAgent: 'kscale-controller-manager' },
    { clock },
  );
  const rs = builder.client('replicaset-controller');
  const dep = builder.client('deployment-controller');
  try {
    assert.equal(builder.client('replicaset-controller'), rs, 'the same name gets the same client');
    assert.notEqual(rs.rateLimiter, dep.rateLimiter);
    assert.equal(rs.config.userAgent, 'kscale-controller-manager/replicaset-controller');
    // The ReplicaSet controller spends its only token; its next request must wait a second of (fake) time.
    await rs.resource(RESOURCES.namespaces).list();
    const waiting = rs.resource(RESOURCES.namespaces).list();
    assert.equal(await settlesSoon(waiting), false, 'the second request of an exhausted bucket waits');
    assert.equal(clock.pending(), 1, 'it waits on its own limiter');
    // Meanwhile the Deployment controller's bucket is untouched: its request goes out at once.
    const other = await dep.resource(RESOURCES.namespaces).list();
    assert.ok(other.items.some((n) => n.metadata?.name === 'default'));
    assert.equal(dep.stats.requests, 1);
    assert.equal(rs.stats.requests, 1, 'the waiting request has not been sent yet');
    clock.step(1_000);
    await waiting;
    assert.equal(rs.stats.requests, 2);
  } finally {
    builder.close();
  }
});

test("startControllers with a client builder sends each controller's writes and Events through its own client", async () => {
  const clock = new RealClock();
  const config = loadKubeconfig({ path: server.kubeconfig });
  const builder = new SimpleControllerClientBuilder(
    { ...config, qps: 0, userAgent: 'kscale-controller-manager' },
    { clock },
  );
  const client = builder.client('shared-informers');
  const informers = new SharedInformerFactory(client, { clock });
  const events = new EventBroadcaster(client, { clock });
  const running = await startControllers(
    {
      client,
      informers,
      clock,
      logger: silentLogger,
      config: defaultControllerManagerConfiguration(),
      events,
      clientBuilder: builder,
    },
    newControllerDescriptors(),
    ['replicaset-controller', 'deployment-controller'],
  );
  const admin = new RESTClient({ ...config, qps: 0 });
  try {
    assert.deepEqual([...builder.clients().keys()].sort(), [
      'deployment-controller',
      'replicaset-controller',
      'shared-informers',
    ]);
    const informerRequests = client.stats.requests;
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'own-client', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'own-client' } },
        template: {
          metadata: { labels: { app: 'own-client' } },
          spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
        },
      },
    };
    await admin.resource<ReplicaSet>(RESOURCES.replicasets).create(rs);
    await waitFor(
      '3 pods',
      async () =>
        (await admin.resource<Pod>(RESOURCES.pods).list({ namespace: 'default', labelSelector: 'app=own-client' }))
          .items.length === 3
          ? true
          : undefined,
      30_000,
    );
    const created = await waitFor(
      'SuccessfulCreate Events',
      async () => {
        const evs = (
          await admin
            .resource<
              KubeObject & { reason?: string; source?: { component?: string }; involvedObject?: { name?: string } }
            >(RESOURCES.events)
            .list({ namespace: 'default' })
        ).items;
        const mine = evs.filter((e) => e.involvedObject?.name === 'own-client' && e.reason === 'SuccessfulCreate');
        return mine.length > 0 ? mine : undefined;
      },
      30_000,
    );
    assert.equal(created[0]!.source?.component, 'replicaset-controller');
    const rsClient = builder.client('replicaset-controller');
    // 3 pod creates, at least one Event write and a status update, all on the ReplicaSet controller's client.
    assert.ok(rsClient.stats.requests >= 5, `replicaset-controller client sent ${rsClient.stats.requests} requests`);
    assert.equal(
      builder.client('deployment-controller').stats.requests,
      0,
      'a ReplicaSet without a Deployment costs the Deployment controller nothing',
    );
    // The informers' client only keeps its watches open: no write went through it.
    assert.ok(
      client.stats.requests - informerRequests <= 2,
      `shared-informers client sent ${client.stats.requests - informerRequests} requests during the sync`,
    );
  } finally {
    await running.stop();
    await events.shutdown();
    admin.close();
    builder.close();
  }
});
