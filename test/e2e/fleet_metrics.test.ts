/**
 * `kscale nodes --secure-port`: the fleet's own /healthz, /livez, /readyz and
 * /metrics over HTTPS with delegated authentication and authorization, and
 * kubelet metrics summed over its nodes under upstream's names: the pod
 * startup SLI, node startup, kubelet_running_pods and client-go's
 * rest_client_request_duration_seconds for the lease calls, all moving as a
 * real server runs the fleet's nodes and a pod.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';
import { httpsGet } from './scheduler_helpers.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import type { Pod } from '../../src/api/index.js';

let server: TestServer;
let fleet: FleetProcess;
let client: RESTClient;

/** The fleet's /metrics as the admin (client certificate of the server's client CA). */
async function metrics(): Promise<string> {
  const k = loadKubeconfig({ path: server.kubeconfig });
  const res = await httpsGet(`${fleet.endpointsURL}/metrics`, k.cert, k.key);
  assert.equal(res.status, 200, res.text);
  return res.text;
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  fleet = startFleet(server.kubeconfig, [
    '--count',
    '3',
    '--port',
    '-1',
    '--name-prefix',
    'metrics-node-',
    '--secure-port',
    '0',
    '--client-ca-file',
    join(server.dir, 'data', 'tls', 'client-ca.crt'),
  ]);
  await fleet.registered;
});
after(async () => {
  await fleet?.stop();
  client?.close();
  await server?.stop();
});

test('the fleet serves /healthz, /livez and /readyz over HTTPS to anyone, /metrics only to an authorized caller', async () => {
  assert.match(fleet.endpointsURL, /^https:\/\/127\.0\.0\.1:\d+$/);
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const res = await httpsGet(`${fleet.endpointsURL}${p}`);
    assert.equal(res.status, 200, p);
    assert.equal(res.text, 'ok', p);
  }
  const anonymous = await httpsGet(`${fleet.endpointsURL}/metrics`);
  assert.equal(anonymous.status, 403);
  assert.match(anonymous.text, /User "system:anonymous" cannot get path "\/metrics"/);
  assert.match(await metrics(), /^process_cpu_seconds_total \d/m);
});

test('the fleet exports kubelet metrics in aggregate under upstream names, moving with its nodes and pods', async () => {
  const host = new URL(server.url).host;
  let text = await metrics();
  assert.equal(sample(text, 'kubelet_node_startup_duration_seconds_count'), 3, 'one node startup per node');
  assert.equal(sample(text, 'kscale_fleet_registered_nodes'), 3);
  // Registration creates each node's Lease; 4 s leases are renewed (PUT) every second.
  text = await waitFor(
    'lease renewals in rest_client_request_duration_seconds',
    async () => {
      const t = await metrics();
      const puts = sample(t, `rest_client_request_duration_seconds_count{verb="PUT",host="${host}"}`) ?? 0;
      return puts >= 3 ? t : undefined;
    },
    20_000,
  );
  assert.match(text, /^# TYPE rest_client_request_duration_seconds histogram$/m);
  assert.match(
    text,
    new RegExp(
      `^rest_client_request_duration_seconds_bucket\\{le="0.005",verb="PUT",host="${host.replace(/\./g, '\\.')}"\\} \\d`,
      'm',
    ),
  );
  assert.equal(sample(text, 'kubelet_pod_start_sli_duration_seconds_count'), 0);
  // A pod bound to one of the nodes (no scheduler): its kubelet starts it and reports Running.
  await client.resource<Pod>(RESOURCES.pods).create(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { nodeName: 'metrics-node-0', containers: [{ name: 'c', image: 'nginx' }] },
    },
    { namespace: 'default' },
  );
  text = await waitFor(
    'the pod start in kubelet_pod_start_sli_duration_seconds',
    async () => {
      const t = await metrics();
      return sample(t, 'kubelet_pod_start_sli_duration_seconds_count') === 1 ? t : undefined;
    },
    20_000,
  );
  assert.match(text, /^# TYPE kubelet_pod_start_sli_duration_seconds histogram$/m);
  // Created, then started after 100–300 ms: inside the SLI's first buckets (creationTimestamp has 1 s resolution).
  assert.equal(sample(text, 'kubelet_pod_start_sli_duration_seconds_bucket{le="2"}'), 1);
  assert.equal(sample(text, 'kubelet_running_pods'), 1);
});
