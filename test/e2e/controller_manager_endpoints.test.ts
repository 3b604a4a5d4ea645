/**
 * `kscale controller-manager --secure-port`: /healthz, /livez, /readyz and
 * /metrics on upstream's endpoints, with the workqueue family (label `name`)
 * moving as a Deployment is synced, and leader_election_master_status.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import type { Deployment } from '../../src/api/index.js';

let server: TestServer;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let url = '';
let client: RESTClient;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  cm = await startControllerManagerProcess(server.kubeconfig, ['--secure-port', '0']);
  url = cm.endpointsURL;
});
after(async () => {
  await cm?.stop();
  client?.close();
  await server?.stop();
});

test('the controller-manager serves /healthz, /livez and /readyz on 127.0.0.1, and 404 elsewhere', async () => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const res = await fetch(url + p);
    assert.equal(res.status, 200, p);
    assert.equal(await res.text(), 'ok');
  }
  const verbose = await fetch(`${url}/readyz?verbose`);
  assert.match(await verbose.text(), /readyz check passed/);
  assert.equal((await fetch(`${url}/nope`)).status, 404);
});

test('the controller-manager exports the workqueue family per queue and leader_election_master_status', async () => {
  await client.resource<Deployment>(RESOURCES.deployments).create(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
    { namespace: 'default' },
  );
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = await (await fetch(`${url}/metrics`)).text();
    if (/workqueue_work_duration_seconds_count\{name="deployment-controller"\} [1-9]/.test(text)) break;
    await sleep(100);
  }
  assert.match(text, /workqueue_adds_total\{name="deployment-controller"\} [1-9]/);
  assert.match(text, /workqueue_work_duration_seconds_count\{name="deployment-controller"\} [1-9]/);
  assert.match(text, /workqueue_queue_duration_seconds_bucket\{le="1e-8",name="deployment-controller"\}/);
  for (const family of [
    'workqueue_depth',
    'workqueue_retries_total',
    'workqueue_unfinished_work_seconds',
    'workqueue_longest_running_processor_seconds',
  ])
    assert.match(text, new RegExp(`^${family}\\{name="replicaset-controller"\\} \\d`, 'm'), family);
  assert.match(text, /^leader_election_master_status\{name="kube-controller-manager"\} 1$/m);
  assert.match(text, /^process_cpu_seconds_total \d/m);
});
