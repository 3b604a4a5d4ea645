/**
 * `kscale controller-manager --secure-port`: /healthz, /livez, /readyz and
 * /metrics on upstream's endpoints over HTTPS (a self-signed certificate),
 * with delegated authentication and authorization as upstream: the health
 * checks are always allowed, /metrics needs a caller the API server
 * authorizes (system:monitoring, by token or client certificate); the
 * workqueue family (label `name`) moves as a Deployment is synced, and
 * leader_election_master_status.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { secureGet, type SecureGetAuth } from './fixtures/secure_get.js';
import { join } from 'node:path';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { serviceAccountKubectl } from './fixtures/serviceaccount.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import type { Deployment } from '../../src/api/index.js';

let server: TestServer;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let url = '';
let client: RESTClient;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A GET to the secure port (fixtures/secure_get.ts). */
const get = (path: string, auth: SecureGetAuth = {}): Promise<{ status: number; text: string }> =>
  secureGet(`${url}${path}`, auth);

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  cm = await startControllerManagerProcess(server.kubeconfig, [
    '--secure-port',
    '0',
    '--client-ca-file',
    join(server.dir, 'data', 'tls', 'client-ca.crt'),
  ]);
  url = cm.endpointsURL;
});
after(async () => {
  await cm?.stop();
  client?.close();
  await server?.stop();
});

test('the controller-manager serves /healthz, /livez and /readyz over HTTPS on 127.0.0.1 to anyone', async () => {
  assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const res = await get(p);
    assert.equal(res.status, 200, p);
    assert.equal(res.text, 'ok');
  }
  assert.match((await get('/readyz?verbose')).text, /readyz check passed/);
});

test('/metrics needs a caller the API server authorizes: system:monitoring 200, others 403, a bad token 401', async () => {
  const admin = new Kubectl(kubectlPath(), server.kubeconfig);
  const { token: monitor } = await serviceAccountKubectl(server, admin, 'monitor');
  await admin.ok([
    'create',
    'clusterrolebinding',
    'monitor',
    '--clusterrole=system:monitoring',
    '--serviceaccount=default:monitor',
  ]);
  const { token: nobody } = await serviceAccountKubectl(server, admin, 'nobody');
  const ok = await get('/metrics', { token: monitor });
  assert.equal(ok.status, 200, ok.text);
  assert.match(ok.text, /^workqueue_adds_total\{/m);
  const denied = await get('/metrics', { token: nobody });
  assert.equal(denied.status, 403);
  assert.equal(denied.text.trim(), 'forbidden: User "system:serviceaccount:default:nobody" cannot get path "/metrics"');
  const anonymous = await get('/metrics');
  assert.equal(anonymous.status, 403);
  assert.match(anonymous.text, /User "system:anonymous" cannot get path "\/metrics"/);
  assert.equal((await get('/metrics', { token: 'not-a-token' })).status, 401);
  // A client certificate signed by --client-ca-file: the admin's (kubeadm:cluster-admins, every path).
  const k = loadKubeconfig({ path: server.kubeconfig });
  assert.equal((await get('/metrics', { cert: k.cert!, key: k.key! })).status, 200);
  // Behind authentication, an unknown path is 404 only for an authorized caller.
  assert.equal((await get('/nope', { token: monitor })).status, 403);
  assert.equal((await get('/nope', { cert: k.cert!, key: k.key! })).status, 404);
});

test('the controller-manager exports the workqueue family per queue and leader_election_master_status', async () => {
  const admin = loadKubeconfig({ path: server.kubeconfig });
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
    text = (await get('/metrics', { cert: admin.cert!, key: admin.key! })).text;
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
