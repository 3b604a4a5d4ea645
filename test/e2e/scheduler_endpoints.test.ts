/**
 * `kscale scheduler --secure-port`: /healthz, /livez, /readyz and /metrics on
 * upstream's secure port (10259; here 0, a free one) over HTTPS with a
 * self-signed certificate and delegated authentication and authorization, as
 * kube-scheduler's: the health checks are always allowed, /metrics needs a
 * caller the API server authorizes (a system:monitoring token, or a client
 * certificate of --client-ca-file that RBAC allows).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { httpsGet, startScheduler, type SchedulerProcess } from './scheduler_helpers.js';
import { serviceAccountKubectl } from './fixtures/serviceaccount.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { secureGet } from './fixtures/secure_get.js';

let server: TestServer;
let scheduler: SchedulerProcess;

before(async () => {
  server = await startServer();
  scheduler = await startScheduler(server.kubeconfig, ['--leader-elect=false']);
});
after(async () => {
  await scheduler?.stop();
  await server?.stop();
});

test('the scheduler serves /healthz, /livez and /readyz over HTTPS on 127.0.0.1 to anyone', async () => {
  assert.match(scheduler.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const res = await httpsGet(`${scheduler.url}${p}`);
    assert.equal(res.status, 200, p);
    assert.equal(res.text, 'ok', p);
  }
  assert.match((await httpsGet(`${scheduler.url}/readyz?verbose`)).text, /readyz check passed/);
  // No plain-HTTP port unless the deprecated --port asks for one.
  assert.ok(!scheduler.out.some((l) => l.includes('listening on http://')), scheduler.out.join('\n'));
});

test("the scheduler's /metrics needs a caller the API server authorizes", async () => {
  const anonymous = await httpsGet(`${scheduler.url}/metrics`);
  assert.equal(anonymous.status, 403);
  assert.match(anonymous.text, /User "system:anonymous" cannot get path "\/metrics"/);
  assert.equal((await secureGet(`${scheduler.url}/metrics`, { token: 'not-a-token' })).status, 401);
  // The admin's client certificate, signed by the server's client CA (--client-ca-file).
  const admin = await scheduler.get('/metrics');
  assert.equal(admin.status, 200, admin.text);
  assert.match(admin.text, /^# TYPE scheduler_schedule_attempts_total counter$/m);
  assert.match(admin.text, /^scheduler_pending_pods\{queue="active"\} \d/m);
  const kubectl = new Kubectl(kubectlPath(), server.kubeconfig);
  const { token: monitor } = await serviceAccountKubectl(server, kubectl, 'monitor');
  await kubectl.ok([
    'create',
    'clusterrolebinding',
    'monitor',
    '--clusterrole=system:monitoring',
    '--serviceaccount=default:monitor',
  ]);
  const { token: nobody } = await serviceAccountKubectl(server, kubectl, 'nobody');
  assert.equal((await secureGet(`${scheduler.url}/metrics`, { token: monitor })).status, 200);
  const denied = await secureGet(`${scheduler.url}/metrics`, { token: nobody });
  assert.equal(denied.status, 403);
  assert.equal(denied.text.trim(), 'forbidden: User "system:serviceaccount:default:nobody" cannot get path "/metrics"');
});
