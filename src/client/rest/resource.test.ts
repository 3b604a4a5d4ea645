/** The REST client against a real `kscale server`: kubeconfig, CRUD, the patch types, subresources, errors and 429s. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer, type TestServer } from '../../../test/e2e/harness.js';
import { isConflictError, isNotFoundError, type KubeObject } from '../../api/index.js';
import { RESTClient } from './client.js';
import { loadKubeconfig } from './config.js';
import { RESOURCES } from './resources.js';

let server: TestServer;
let client: RESTClient;

before(async () => {
  server = await startServer();
  client = new RESTClient(loadKubeconfig({ path: server.kubeconfig }));
});
after(async () => {
  client.close();
  await server.stop();
});

test('the kubeconfig the server writes is loaded as is', () => {
  const cfg = loadKubeconfig({ env: { KUBECONFIG: server.kubeconfig } });
  assert.equal(cfg.host, server.url.replace(/\/$/, ''));
  assert.equal(cfg.bearerToken, undefined, 'the admin authenticates with a client certificate');
  assert.match(String(cfg.cert), /BEGIN CERTIFICATE/);
  assert.match(String(cfg.ca), /BEGIN CERTIFICATE/);
  assert.equal(cfg.namespace, 'default');
  assert.notEqual(cfg.insecureSkipTLSVerify, true, 'the server is verified with its CA');
});

test('create, get, list, update with a stale RV, and delete', async () => {
  const cms = client.resource(RESOURCES.configmaps);
  const created = await cms.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'crud', namespace: 'default', labels: { a: 'b' } },
    data: { k: 'v' },
  });
  assert.ok(created.metadata?.resourceVersion);
  const got = await cms.get('crud', { namespace: 'default' });
  assert.deepEqual(got.data, { k: 'v' });
  const list = await cms.list({ namespace: 'default', labelSelector: 'a=b' });
  assert.deepEqual(
    list.items.map((i) => i.metadata?.name),
    ['crud'],
  );
  assert.ok(list.metadata.resourceVersion);
  const updated = await cms.update({ ...got, data: { k: 'v2' } });
  assert.notEqual(updated.metadata?.resourceVersion, got.metadata?.resourceVersion);
  await assert.rejects(cms.update({ ...got, data: { k: 'stale' } }), (e) => isConflictError(e));
  await cms.delete('crud', { namespace: 'default' });
  await assert.rejects(cms.get('crud', { namespace: 'default' }), (e) => isNotFoundError(e));
});

test('json, merge, strategic and apply patches', async () => {
  const nodes = client.resource(RESOURCES.nodes);
  await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'patch-node' } });
  let n = await nodes.patch('patch-node', 'strategic', { spec: { unschedulable: true } });
  assert.equal((n.spec as { unschedulable?: boolean }).unschedulable, true);
  n = await nodes.patch('patch-node', 'merge', { spec: { unschedulable: null } });
  assert.equal((n.spec as { unschedulable?: boolean }).unschedulable, undefined);
  n = await nodes.patch('patch-node', 'json', [{ op: 'add', path: '/metadata/labels', value: { zone: 'a' } }]);
  assert.equal(n.metadata?.labels?.zone, 'a');
  n = await nodes.apply(
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'patch-node', labels: { owner: 'me' } } },
    { fieldManager: 'test', force: true },
  );
  assert.equal(n.metadata?.labels?.owner, 'me');
  const applied = await nodes.apply(
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'applied-node' } },
    { fieldManager: 'test' },
  );
  assert.equal(applied.metadata?.name, 'applied-node', 'apply creates a missing object');
});

test('status, binding and eviction subresources', async () => {
  const pods = client.resource(RESOURCES.pods);
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'sub', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
  await pods.create(pod);
  await pods.bind('sub', 'default', 'patch-node');
  const bound = await pods.get('sub', { namespace: 'default' });
  assert.equal((bound.spec as { nodeName?: string }).nodeName, 'patch-node');
  const st = await pods.patchStatus('sub', 'merge', { status: { phase: 'Running' } }, { namespace: 'default' });
  assert.equal((st.status as { phase?: string }).phase, 'Running');
  await pods.evict('sub', 'default');
  const gone = await pods.get('sub', { namespace: 'default' }).catch((e: unknown) => e);
  assert.ok(isNotFoundError(gone) || (gone as KubeObject).metadata?.deletionTimestamp !== undefined);
});

test('429 from --max-mutating-requests-inflight is retried until every write lands', async () => {
  // Max-in-flight alone: under APF the plain port's system:masters is exempt and never pushed back.
  const s = await startServer(['--max-mutating-requests-inflight', '1', '--enable-priority-and-fairness=false']);
  const c = new RESTClient(loadKubeconfig({ path: s.kubeconfig }));
  try {
    const cms = c.resource(RESOURCES.configmaps);
    const n = 40;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' } }),
      ),
    );
    assert.equal((await cms.list({ namespace: 'default' })).items.length, n);
    assert.ok(c.stats.tooManyRequests > 0, 'the server pushed back at least once');
  } finally {
    c.close();
    await s.stop();
  }
});
