/**
 * The EndpointSlice and Endpoints controllers in `kscale controller-manager`
 * against a real `kscale server`, with hollow nodes running the pods: a
 * Service of 250 pods gets 3 slices and one pod's deletion touches one
 * slice; Endpoints stop at 1,000 addresses with the over-capacity
 * annotation; PreferClose hints carry zones; idle controllers make no calls.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfig, RESOURCES, RESTClient, type KubeObject } from '../../src/client/index.js';
import { startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';
import { requestCounts, requestsSince } from './fixtures/api_requests.js';
import { startControllerManagerProcess, startPodPlacement } from './fixtures/workloads.js';
import type { Endpoints, EndpointSlice, Pod, Service } from '../../src/api/index.js';

const NS = 'default';
let server: TestServer;
let fleet: FleetProcess;
let binder: { stop(): Promise<void> };
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let client: RESTClient;

before(async () => {
  server = await startServer([...INSECURE_PORT]);
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  fleet = startFleet(server.kubeconfig, ['--count', '12', '--zones', '3']);
  await fleet.registered;
  binder = await startPodPlacement(server.kubeconfig);
  cm = await startControllerManagerProcess(server.kubeconfig, [
    '--controllers',
    'endpointslice-controller,endpoints-controller',
    '--endpoint-updates-batch-period',
    '1s',
  ]);
});
after(async () => {
  await cm?.stop();
  await binder?.stop();
  await fleet?.stop();
  client?.close();
  await server?.stop();
});

const services = () => client.resource<Service>(RESOURCES.services);
const pods = () => client.resource<Pod>(RESOURCES.pods);
const slicesOf = async (svc: string): Promise<EndpointSlice[]> =>
  (
    await client
      .resource<EndpointSlice>(RESOURCES.endpointslices)
      .list({ namespace: NS, labelSelector: `kubernetes.io/service-name=${svc}` })
  ).items;
const readyCount = (slices: EndpointSlice[]): number =>
  slices.reduce((n, s) => n + s.endpoints.filter((e) => e.conditions?.ready === true).length, 0);

async function createService(
  name: string,
  selector: Record<string, string>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await services().create({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS },
    spec: { selector, ports: [{ name: 'http', port: 80, targetPort: 'http' }], ...extra },
  });
}

async function createPods(prefix: string, n: number, labels: Record<string, string>): Promise<void> {
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, j) =>
        pods().create({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${prefix}-${i + j}`, namespace: NS, labels },
          spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
        } as KubeObject),
      ),
    );
  }
}

test('a Service of 250 pods gets 3 slices of at most 100 endpoints, with node, zone and the trigger-time annotation', async () => {
  await createService('web', { app: 'web' });
  await createPods('web', 250, { app: 'web', group: 'big' });
  const slices = await waitFor(
    '250 ready endpoints',
    async () => {
      const s = await slicesOf('web');
      return readyCount(s) === 250 ? s : undefined;
    },
    60_000,
  );
  assert.equal(slices.length, 3);
  for (const s of slices) {
    assert.ok(s.endpoints.length <= 100, `slice ${s.metadata?.name} has ${s.endpoints.length}`);
    assert.equal(s.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.match(
      s.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'] ?? '',
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    assert.equal(s.metadata?.ownerReferences?.[0]?.kind, 'Service');
    assert.deepEqual(s.ports, [{ name: 'http', protocol: 'TCP', port: 8080 }]);
  }
  const ep = slices[0]!.endpoints[0]!;
  assert.match(ep.nodeName ?? '', /^hollow-node-\d+$/);
  assert.match(ep.zone ?? '', /./);
  assert.deepEqual(ep.conditions, { ready: true, serving: true, terminating: false });
  assert.equal(ep.targetRef?.kind, 'Pod');
});

test('deleting one pod updates exactly one slice, and only that one', async () => {
  const list = await client
    .resource<EndpointSlice>(RESOURCES.endpointslices)
    .list({ namespace: NS, labelSelector: 'kubernetes.io/service-name=web' });
  const victim = 'web-123';
  const holder = list.items.find((s) => s.endpoints.some((e) => e.targetRef?.name === victim))!.metadata!.name!;
  const w = await client.resource<EndpointSlice>(RESOURCES.endpointslices).watch({
    namespace: NS,
    labelSelector: 'kubernetes.io/service-name=web',
    resourceVersion: list.metadata!.resourceVersion!,
  });
  const events: { type: string; name: string; terminating: boolean; present: boolean }[] = [];
  const seen = (async () => {
    for await (const ev of w) {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
      const s = ev.object as EndpointSlice;
      const e = s.endpoints?.find((x) => x.targetRef?.name === victim);
      events.push({
        type: ev.type,
        name: s.metadata?.name ?? '',
        terminating: e?.conditions?.terminating === true,
        present: e !== undefined,
      });
    }
  })();
  await pods().delete(victim, { namespace: NS });
  await waitFor('the pod to leave the slices', async () => (events.some((e) => !e.present) ? true : undefined), 20_000);
  // Let any stray write of other slices arrive before judging.
  await new Promise((r) => setTimeout(r, 1_500));
  w.stop();
  await seen;
  assert.ok(events.length >= 1);
  assert.deepEqual([...new Set(events.map((e) => `${e.type} ${e.name}`))], [`MODIFIED ${holder}`]);
  const after = await slicesOf('web');
  assert.equal(after.length, 3);
  assert.equal(readyCount(after), 249);
});

test('Endpoints hold at most 1,000 addresses with the over-capacity annotation, which goes once under the cap', async () => {
  await createService('big', { group: 'big' });
  await createPods('big', 760, { group: 'big' });
  const ep = await waitFor(
    'truncated Endpoints',
    async () => {
      const e = await client.resource<Endpoints>(RESOURCES.endpoints).get('big', { namespace: NS });
      return e.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity'] === 'truncated' ? e : undefined;
    },
    90_000,
  );
  const count = (e: Endpoints): number =>
    (e.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
  assert.equal(count(ep), 1000);
  const slices = await waitFor(
    '1,009 ready endpoints in slices',
    async () => {
      const s = await slicesOf('big');
      return readyCount(s) === 1009 ? s : undefined;
    },
    60_000,
  );
  // Like upstream's reconciler, new endpoints go to a new slice unless they all fit an untouched one, so pods that
  // arrive in bursts may leave slices less than full: at least 11 slices, none above --max-endpoints-per-slice.
  assert.ok(slices.length >= 11, `${slices.length} slices`);
  for (const s of slices) assert.ok(s.endpoints.length <= 100, `${s.metadata?.name} holds ${s.endpoints.length}`);
  const web = await client.resource<Endpoints>(RESOURCES.endpoints).get('web', { namespace: NS });
  assert.equal(count(web), 249);
  assert.equal(web.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity'], undefined);
  // The Service has no labels: like upstream's omitempty, the Endpoints carries no empty labels map.
  assert.equal(web.metadata !== undefined && 'labels' in web.metadata, false, JSON.stringify(web.metadata));
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => pods().delete(`big-${i}`, { namespace: NS, gracePeriodSeconds: 0 })),
  );
  const under = await waitFor(
    'Endpoints under the cap',
    async () => {
      const e = await client.resource<Endpoints>(RESOURCES.endpoints).get('big', { namespace: NS });
      return count(e) === 989 ? e : undefined;
    },
    30_000,
  );
  assert.equal(under.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity'], undefined);
});

test('trafficDistribution PreferClose hints every endpoint to its own zone', async () => {
  await services().patch('web', 'merge', { spec: { trafficDistribution: 'PreferClose' } }, { namespace: NS });
  const slices = await waitFor('hints on every endpoint', async () => {
    const s = await slicesOf('web');
    return s.every((x) => x.endpoints.every((e) => e.hints?.forZones?.[0]?.name !== undefined)) ? s : undefined;
  });
  for (const s of slices) for (const e of s.endpoints) assert.equal(e.hints?.forZones?.[0]?.name, e.zone);
});

test('idle controllers make no requests for Services, slices, Endpoints or pods', async () => {
  const settled = async (): Promise<Map<string, number>> => {
    const a = await requestCounts(server.url);
    await new Promise((r) => setTimeout(r, 3_000));
    const b = await requestCounts(server.url);
    // Events count too: the scheduler's Scheduled Events for the 1,000-pod test drain at its events QPS first.
    return Object.keys(requestsSince(a, b, ['endpointslices', 'endpoints', 'services', 'events'])).length === 0
      ? b
      : new Map();
  };
  const before = await waitFor(
    'the cluster to settle',
    async () => {
      const b = await settled();
      return b.size > 0 ? b : undefined;
    },
    60_000,
  );
  await new Promise((r) => setTimeout(r, 5_000));
  const delta = requestsSince(before, await requestCounts(server.url), [
    'endpointslices',
    'endpoints',
    'services',
    'events',
  ]);
  assert.deepEqual(delta, {}, `${JSON.stringify(delta)}\n${cm.stderr()}`);
});
