import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RealClock } from '../../src/clock/index.js';
import { RESTClient, RESOURCES, loadKubeconfig, type KubeObject } from '../../src/client/index.js';
import { COMBINED_PREFIX, EventBroadcaster, type CoreEvent } from '../../src/client/record/index.js';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let rest: RESTClient;
before(async () => {
  server = await startServer();
  rest = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
});
after(async () => {
  rest?.close();
  await server?.stop();
});

const events = async (name: string): Promise<CoreEvent[]> =>
  (
    await rest
      .resource<CoreEvent>(RESOURCES.events)
      .list({ namespace: 'default', fieldSelector: `involvedObject.name=${name}` })
  ).items;

test('repeated events reach the API server as one Event with a count, and similar ones are combined', async () => {
  const broadcaster = new EventBroadcaster(rest, { clock: new RealClock() });
  const recorder = broadcaster.newRecorder({ component: 'replicaset-controller' });
  const rs: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-rs', namespace: 'default', uid: 'rs-uid' },
  };
  for (let i = 0; i < 5; i++) recorder.event(rs, 'Warning', 'FailedCreate', 'quota exceeded');
  for (let i = 0; i < 12; i++) recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: web-rs-${i}`);
  await broadcaster.flush();
  const list = await events('web-rs');
  const failed = list.filter((e) => e.reason === 'FailedCreate');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.count, 5);
  assert.equal(failed[0]!.type, 'Warning');
  assert.equal(failed[0]!.source.component, 'replicaset-controller');
  assert.deepEqual(failed[0]!.involvedObject, {
    kind: 'ReplicaSet',
    apiVersion: 'apps/v1',
    namespace: 'default',
    name: 'web-rs',
    uid: 'rs-uid',
  });
  const created = list.filter((e) => e.reason === 'SuccessfulCreate');
  // Nine distinct messages stand alone; the tenth onwards share one combined Event.
  assert.equal(created.length, 10);
  const combined = created.find((e) => e.message.startsWith(COMBINED_PREFIX));
  assert.ok(combined);
  assert.equal(combined.count, 3);
  assert.equal(combined.message, `${COMBINED_PREFIX}Created pod: web-rs-11`);
  assert.deepEqual(broadcaster.stats, { recorded: 17, created: 11, patched: 6, filtered: 0, dropped: 0, failed: 0 });
  await broadcaster.shutdown();
});

test('an Event the server rejects is counted as failed and later events still flow', async () => {
  const broadcaster = new EventBroadcaster(rest, { clock: new RealClock() });
  const recorder = broadcaster.newRecorder({ component: 'test' });
  recorder.event(
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'no-such-namespace' } },
    'Normal',
    'Scheduled',
    'nowhere',
  );
  recorder.event(
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-reject', namespace: 'default' } },
    'Normal',
    'Scheduled',
    'ok',
  );
  await broadcaster.flush();
  assert.equal(broadcaster.stats.failed, 1);
  assert.equal((await events('after-reject')).length, 1);
  await broadcaster.shutdown();
});

test('a full queue drops events instead of blocking the caller', async () => {
  const broadcaster = new EventBroadcaster(rest, { clock: new RealClock(), queueSize: 3 });
  const recorder = broadcaster.newRecorder({ component: 'test' });
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'burst', namespace: 'default' } };
  for (let i = 0; i < 10; i++) recorder.event(obj, 'Normal', 'Pulled', `image ${i}`);
  // The first event is taken by the writer at once; three wait; the rest are dropped.
  assert.equal(broadcaster.stats.dropped, 6);
  await broadcaster.flush();
  assert.equal((await events('burst')).length, 4);
  await broadcaster.shutdown();
});
