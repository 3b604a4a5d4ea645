/**
 * deploy/grafana/kscale.json against the real thing: the JSON parses as a
 * Grafana dashboard, and every panel's PromQL runs against Debian's
 * Prometheus scraping a real `kscale server`, controller-manager, scheduler
 * and fleet (each over HTTPS with a client certificate), through the scrape
 * config the lab generates. Also checks
 * ClusterLoader2's API-latency query over apiserver_request_sli_duration_seconds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from './harness.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { startScheduler, type SchedulerProcess } from './scheduler_helpers.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import type { Deployment } from '../../src/api/index.js';
import {
  apiCountQuery,
  apiLatencyQuery,
  kubeconfigScrapeTarget,
  startPrometheus,
  type RunningPrometheus,
} from '../../src/lab/prometheus.js';

interface Panel {
  title: string;
  type: string;
  datasource: { type: string };
  targets: { refId: string; expr: string }[];
}

const DASHBOARD = fileURLToPath(new URL('../../../deploy/grafana/kscale.json', import.meta.url));

let server: TestServer;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let scheduler: SchedulerProcess;
let fleet: FleetProcess;
let prom: RunningPrometheus;
let client: RESTClient;

async function createDeployment(name: string, replicas: number): Promise<void> {
  await client.resource<Deployment>(RESOURCES.deployments).create(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
    { namespace: 'default' },
  );
}
const dir = mkdtempSync(join(tmpdir(), 'kscale-prom-'));

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  // Its HTTPS port authenticates the admin's client certificate against the server's client CA.
  cm = await startControllerManagerProcess(server.kubeconfig, [
    '--secure-port',
    '0',
    '--client-ca-file',
    join(server.dir, 'data', 'tls', 'client-ca.crt'),
  ]);
  const cmURL = cm.endpointsURL;
  scheduler = await startScheduler(server.kubeconfig, ['--leader-elect=false']);
  fleet = startFleet(server.kubeconfig, [
    '--count',
    '2',
    '--port',
    '0',
    '--name-prefix',
    'prom-node-',
    '--secure-port',
    '0',
    '--client-ca-file',
    join(server.dir, 'data', 'tls', 'client-ca.crt'),
  ]);
  await fleet.registered;
  prom = await startPrometheus(dir, [
    kubeconfigScrapeTarget('apiserver', server.url, server.kubeconfig, dir),
    kubeconfigScrapeTarget('kube-controller-manager', cmURL, server.kubeconfig, join(dir, 'cm'), {
      verifyServer: false,
    }),
    kubeconfigScrapeTarget('kube-scheduler', scheduler.url, server.kubeconfig, join(dir, 'sched'), {
      verifyServer: false,
    }),
    // The fleet's kubelet metrics, scraped with the admin's client certificate as the lab scrapes its fleets.
    kubeconfigScrapeTarget('kubelet', fleet.endpointsURL, server.kubeconfig, join(dir, 'fleet'), {
      verifyServer: false,
    }),
  ]);
  await waitFor(
    'four jobs up in Prometheus',
    async () => ((await prom.query('sum(up)'))[0]?.value === 4 ? true : undefined),
    60_000,
  );
  // rate() needs a series seen before it moves: a first Deployment creates the series, a second one moves them.
  await createDeployment('first', 1);
  await waitFor(
    'the scheduled and Deployment-create series in Prometheus',
    async () =>
      (await prom.query('scheduler_schedule_attempts_total{result="scheduled"}')).length > 0 &&
      (await prom.query('apiserver_request_sli_duration_seconds_count{resource="deployments",verb="POST"}')).length > 0
        ? true
        : undefined,
    60_000,
  );
  await createDeployment('web', 2);
  await waitFor(
    'pods scheduled in Prometheus',
    async () => {
      const r = await prom.query('sum(increase(scheduler_schedule_attempts_total{result="scheduled"}[30s]))');
      return (r[0]?.value ?? 0) > 0 ? true : undefined;
    },
    60_000,
  );
  await waitFor(
    "the fleet's pod starts and lease renewals in Prometheus",
    async () => {
      const starts = await prom.query('sum(increase(kubelet_pod_start_sli_duration_seconds_count[30s]))');
      const renewals = await prom.query('sum(increase(rest_client_request_duration_seconds_count{verb="PUT"}[30s]))');
      return (starts[0]?.value ?? 0) > 0 && (renewals[0]?.value ?? 0) > 0 ? true : undefined;
    },
    60_000,
  );
});
after(async () => {
  await prom?.stop();
  await cm?.stop();
  await scheduler?.stop();
  await fleet?.stop();
  client?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the Grafana dashboard parses, and every panel has Prometheus targets', () => {
  const d = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { title: string; uid: string; panels: Panel[] };
  assert.equal(d.uid, 'kscale');
  assert.ok(d.panels.length >= 8);
  for (const p of d.panels) {
    assert.equal(p.datasource.type, 'prometheus', p.title);
    assert.ok(p.targets.length > 0, p.title);
  }
});

test("every panel's PromQL runs against Prometheus scraping a real cluster, with data", async () => {
  const d = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  for (const p of d.panels)
    for (const t of p.targets) {
      // Grafana's own variables, substituted as Grafana would for a 1 s scrape interval.
      const expr = t.expr.replaceAll('$__rate_interval', '30s');
      const result = await prom.query(expr);
      assert.ok(result.length > 0, `${p.title} ${t.refId}: ${expr} returned nothing`);
    }
});

test("ClusterLoader2's API latency query over apiserver_request_sli_duration_seconds answers per SLI", async () => {
  // A create inside the query's 60 s window (the suite's earlier ones may have left it on a slow run), once scraped.
  await createDeployment('sli', 1);
  let p99: Awaited<ReturnType<typeof prom.query>> = [];
  const creates = await waitFor(
    'the Deployment create in the p99 query',
    async () => {
      p99 = await prom.query(apiLatencyQuery(0.99, 60));
      return p99.find((r) => r.metric.resource === 'deployments' && r.metric.verb === 'POST');
    },
    60_000,
  ).catch(() => undefined);
  assert.ok(creates !== undefined, JSON.stringify(p99.map((r) => r.metric)));
  assert.equal(creates.metric.scope, 'namespace', 'a create is namespace-scoped, as upstream labels it');
  assert.ok(creates.value > 0 && creates.value <= 60, String(creates.value));
  const counts = await prom.query(apiCountQuery(60));
  const c = counts.find((r) => r.metric.resource === 'deployments' && r.metric.verb === 'POST');
  assert.ok(c !== undefined && c.value >= 0.9, JSON.stringify(c));
});
