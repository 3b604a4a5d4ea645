/**
 * pods/resize (upstream 1.33's in-place resize) with the real kubectl against `kscale server` and the
 * resourcequota controller in `kscale controller-manager`: only the containers' cpu and memory change (anything else
 * in the request is dropped), the QoS class may not change, the growth is charged against ResourceQuota (403 past
 * hard) and checked against LimitRange (403 past max), and the pod itself still refuses a resource change.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { waitFor } from './fixtures/cluster.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';

let server: TestServer;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let k: Kubectl;

before(async () => {
  server = await startServer();
  cm = await startControllerManagerProcess(server.kubeconfig, ['--controllers', 'resourcequota-controller']);
  k = new Kubectl(kubectlPath(), server.kubeconfig);
});
after(async () => {
  await k?.close();
  await cm?.stop();
  await server?.stop();
});

type Res = { requests?: Record<string, string>; limits?: Record<string, string> };
interface PodView {
  spec: { containers: { image: string; resources?: Res }[] };
  metadata: { labels?: Record<string, string> };
  status: { qosClass?: string };
}

const burstable: Res = { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } };

async function createPod(ns: string, name: string, resources: Res = burstable): Promise<void> {
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns },
      spec: { containers: [{ name: 'app', image: 'app:1', resources }] },
    }),
  });
}

/** `kubectl patch pod --subresource resize` with a strategic merge patch of the app container. */
const resize = (ns: string, name: string, patch: Record<string, unknown>, fail = false): Promise<string> => {
  const args = ['-n', ns, 'patch', 'pod', name, '--subresource', 'resize', '-p', JSON.stringify(patch)];
  return fail ? k.fails(args) : k.ok(args);
};
const app = (resources: Res, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  spec: { containers: [{ name: 'app', resources, ...extra }] },
});
const get = async (ns: string, name: string): Promise<PodView> => (await k.getJSON(['-n', ns, 'pod', name])) as PodView;
const used = async (ns: string, name: string): Promise<Record<string, string>> =>
  ((await k.getJSON(['-n', ns, 'quota', name])) as { status?: { used?: Record<string, string> } }).status?.used ?? {};

test('a resize changes only the containers’ cpu and memory: an image or label in the same request is dropped', async () => {
  await k.ok(['create', 'ns', 'rz1']);
  await createPod('rz1', 'a');
  await resize('rz1', 'a', {
    metadata: { labels: { sneaky: 'yes' } },
    ...app({ requests: { cpu: '150m' }, limits: { memory: '256Mi' } }, { image: 'app:2' }),
  });
  const p = await get('rz1', 'a');
  assert.deepEqual(p.spec.containers[0]!.resources, {
    requests: { cpu: '150m', memory: '64Mi' },
    limits: { cpu: '200m', memory: '256Mi' },
  });
  assert.equal(p.spec.containers[0]!.image, 'app:1');
  assert.equal(p.metadata.labels?.sneaky, undefined);
  assert.equal(p.status.qosClass, 'Burstable');
  // GET pods/<name>/resize is the pod.
  const raw = await k.ok(['get', '--raw', '/api/v1/namespaces/rz1/pods/a/resize']);
  assert.equal((JSON.parse(raw) as { kind: string }).kind, 'Pod');
});

test('a resize that changes the QoS class, touches a resource other than cpu and memory, or lowers a memory limit in place is a 422', async () => {
  await k.ok(['create', 'ns', 'rz2']);
  await createPod('rz2', 'g', { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '100m', memory: '64Mi' } });
  const qos = await resize('rz2', 'g', app({ requests: { cpu: '50m' } }), true);
  assert.match(qos, /The Pod "g" is invalid: spec: Forbidden: Pod QOS Class may not change as a result of resizing/);
  const eph = await resize('rz2', 'g', app({ requests: { 'ephemeral-storage': '1Gi' } }), true);
  assert.match(eph, /spec\.containers\[0\]\.resources: Forbidden: only cpu and memory resources are mutable/);
  await createPod('rz2', 'b');
  const mem = await resize('rz2', 'b', app({ limits: { memory: '100Mi' } }), true);
  assert.match(
    mem,
    /spec\.containers\[0\]\.resources\.limits\.memory: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer/,
  );
  // The pod itself still refuses a change of resources, as upstream: only pods/resize may make it.
  const direct = await k.fails([
    '-n',
    'rz2',
    'patch',
    'pod',
    'b',
    '-p',
    JSON.stringify(app({ requests: { cpu: '150m' } })),
  ]);
  assert.match(direct, /pod updates may not change fields other than/);
  assert.equal((await get('rz2', 'b')).spec.containers[0]!.resources?.requests?.cpu, '100m');
});

test('a resize is charged what it adds against ResourceQuota: within hard it passes, past hard it is a 403', async () => {
  await k.ok(['create', 'ns', 'rzq']);
  await k.ok(['-n', 'rzq', 'create', 'quota', 'cpu', '--hard=requests.cpu=300m,limits.memory=1Gi']);
  await waitFor('status.used computed', async () =>
    (await used('rzq', 'cpu'))['requests.cpu'] === '0' ? true : undefined,
  );
  await createPod('rzq', 'a');
  assert.equal((await used('rzq', 'cpu'))['requests.cpu'], '100m');
  await resize('rzq', 'a', app({ requests: { cpu: '250m' }, limits: { cpu: '300m' } }));
  assert.equal((await used('rzq', 'cpu'))['requests.cpu'], '250m', 'the growth is charged at admission');
  const err = await resize('rzq', 'a', app({ requests: { cpu: '400m' }, limits: { cpu: '400m' } }), true);
  assert.match(
    err,
    /pods "a" is forbidden: exceeded quota: cpu, requested: requests.cpu=150m, used: requests.cpu=250m, limited: requests.cpu=300m/,
  );
  assert.equal((await get('rzq', 'a')).spec.containers[0]!.resources?.requests?.cpu, '250m');
  // Shrinking is never refused: admission charges only what grows.
  await resize('rzq', 'a', app({ requests: { cpu: '50m' } }));
  assert.equal((await get('rzq', 'a')).spec.containers[0]!.resources?.requests?.cpu, '50m');
});

test('a resize past a LimitRange max is a 403 with upstream’s text', async () => {
  await k.ok(['create', 'ns', 'rzl']);
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits', namespace: 'rzl' },
      spec: { limits: [{ type: 'Container', max: { cpu: '500m' } }] },
    }),
  });
  // The informer feeding the plugin sees the LimitRange within a moment of its creation.
  await waitFor('LimitRange seen', async () => {
    await k.run(['-n', 'rzl', 'delete', 'pod', 'probe', '--ignore-not-found', '--grace-period=0', '--force']);
    const r = await k.run(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'probe', namespace: 'rzl' },
        spec: { containers: [{ name: 'app', image: 'app:1', resources: { limits: { cpu: '1' } } }] },
      }),
    });
    return r.code !== 0 ? true : undefined;
  });
  await createPod('rzl', 'a');
  const err = await resize('rzl', 'a', app({ limits: { cpu: '1' } }), true);
  assert.match(err, /pods "a" is forbidden: maximum cpu usage per Container is 500m, but limit is 1/);
  await resize('rzl', 'a', app({ limits: { cpu: '400m' } }));
  assert.equal((await get('rzl', 'a')).spec.containers[0]!.resources?.limits?.cpu, '400m');
});
