/** RoutedStorage against two real etcds: events go to the second, everything else to the first. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isNotFound } from './errors.js';
import { Etcd3Storage } from './etcd3/index.js';
import { overridePrefix, parseEtcdServersOverrides, RoutedStorage } from './router.js';
import { directObjects, runObjectConformance } from './testing/object_tests.js';
import { collect } from './testing/store_tests.js';
import { startEtcd, type EtcdProcess } from './testing/etcd_process.js';

let main: EtcdProcess;
let events: EtcdProcess;
let mainStore: Etcd3Storage;
let eventStore: Etcd3Storage;
let routed: RoutedStorage;
const buf = (s: string): Buffer => Buffer.from(s);

before(async () => {
  [main, events] = await Promise.all([startEtcd(), startEtcd()]);
  mainStore = new Etcd3Storage({ servers: [main.clientUrl] });
  const [override] = parseEtcdServersOverrides(`/events#${events.clientUrl}`);
  eventStore = new Etcd3Storage({ servers: override.servers });
  routed = new RoutedStorage(mainStore, [{ prefix: overridePrefix(override), storage: eventStore }]);
});

after(async () => {
  await routed?.close();
  await Promise.all([main?.stop(), events?.stop()]);
});

test('parseEtcdServersOverrides reads upstream syntax', () => {
  assert.deepEqual(parseEtcdServersOverrides('/events#http://a:2379;http://b:2379,apps/deployments#https://c:2379'), [
    { group: '', resource: 'events', servers: ['http://a:2379', 'http://b:2379'] },
    { group: 'apps', resource: 'deployments', servers: ['https://c:2379'] },
  ]);
  assert.deepEqual(parseEtcdServersOverrides(''), []);
  assert.throws(() => parseEtcdServersOverrides('events#http://a:2379'), /invalid resource/);
  assert.throws(() => parseEtcdServersOverrides('/events'), /invalid value/);
  assert.throws(() => parseEtcdServersOverrides('/events#'), /no servers/);
});

test('events are written to and read from the events store only', async () => {
  const ev = await routed.create('/registry/events/default/e1', buf('event'));
  const pod = await routed.create('/registry/pods/default/p1', buf('pod'));
  assert.equal((await eventStore.get('/registry/events/default/e1')).value.toString(), 'event');
  await assert.rejects(mainStore.get('/registry/events/default/e1'), isNotFound);
  assert.equal((await mainStore.get('/registry/pods/default/p1')).modRevision, pod.modRevision);
  await assert.rejects(eventStore.get('/registry/pods/default/p1'), isNotFound);
  const updated = await routed.guaranteedUpdate('/registry/events/default/e1', () => ({ value: buf('event2') }));
  assert.ok(updated.modRevision > ev.modRevision);
  const listed = await routed.list('/registry/events/default/');
  assert.deepEqual(
    listed.items.map((kv) => kv.value.toString()),
    ['event2'],
  );
  assert.equal(listed.revision, await eventStore.currentRevision(), 'a routed list carries its own store revision');
  assert.equal(
    await routed.currentRevision(),
    await mainStore.currentRevision(),
    'store-wide calls mean the default store',
  );
  await routed.delete('/registry/events/default/e1');
  await assert.rejects(eventStore.get('/registry/events/default/e1'), isNotFound);
});

test('a watch on the events prefix follows the events store', async () => {
  const w = routed.watch('/registry/events/');
  try {
    await new Promise((r) => setTimeout(r, 100));
    await routed.create('/registry/pods/default/p2', buf('pod'));
    const made = await routed.create('/registry/events/default/e2', buf('event'));
    const [ev] = await collect(w, 1);
    assert.equal(ev.key, '/registry/events/default/e2');
    assert.equal(ev.revision, made.modRevision);
  } finally {
    w.stop();
  }
});

test('a list or watch whose prefix spans stores is refused', async () => {
  assert.throws(() => routed.watch('/registry/'), /spans storage routes/);
  await assert.rejects(routed.list('/registry/'), /spans storage routes/);
  assert.throws(
    () =>
      new RoutedStorage(mainStore, [
        { prefix: '/registry/events/', storage: eventStore },
        { prefix: '/registry/events/ns/', storage: mainStore },
      ]),
    /may not nest/,
  );
});

runObjectConformance('router', () => directObjects(routed));
