/**
 * ResourceQuota and LimitRange with the real kubectl against `kscale server`
 * and the resourcequota controller in `kscale controller-manager`: quota
 * charged at admission (403 past hard, 403 when a cpu quota's request is
 * missing), LimitRange defaults on created pods and max as a 403, status.used
 * going down after a delete, updates charged what they add (a Service turned
 * NodePort, a claim's storage raised), and the printers and describers
 * kubectl uses.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfig, RESTClient, RESOURCES } from '../../src/client/index.js';
import type { Pod } from '../../src/api/index.js';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { waitFor } from './fixtures/cluster.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';

let server: TestServer;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let k: Kubectl;

before(async () => {
  server = await startServer();
  cm = await startControllerManagerProcess(server.kubeconfig, [
    '--controllers',
    'resourcequota-controller,persistentvolume-binder,hollow-provisioner',
  ]);
  k = new Kubectl(kubectlPath(), server.kubeconfig);
});
after(async () => {
  await k?.close();
  await cm?.stop();
  await server?.stop();
});

function pod(name: string, ns: string, resources: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: { containers: [{ name: 'app', image: 'app:1', resources }] },
  });
}

const used = async (ns: string, name: string): Promise<Record<string, string>> =>
  ((await k.getJSON(['-n', ns, 'quota', name])) as { status?: { used?: Record<string, string> } }).status?.used ?? {};

test('a pods=2 quota refuses the third pod with upstream text, and deleting a pod gives the unit back', async () => {
  await k.ok(['create', 'ns', 'q1']);
  await k.ok(['-n', 'q1', 'create', 'quota', 'two', '--hard=pods=2,requests.cpu=1']);
  await waitFor('status.used computed', async () => ((await used('q1', 'two')).pods === '0' ? true : undefined));
  const cpu = { requests: { cpu: '100m' } };
  await k.ok(['create', '-f', '-'], { input: pod('a', 'q1', cpu) });
  await k.ok(['create', '-f', '-'], { input: pod('b', 'q1', cpu) });
  assert.deepEqual(await used('q1', 'two'), { pods: '2', 'requests.cpu': '200m' });
  const err = await k.fails(['create', '-f', '-'], { input: pod('c', 'q1', cpu) });
  assert.match(err, /pods "c" is forbidden: exceeded quota: two, requested: pods=1, used: pods=2, limited: pods=2/);
  const table = await k.ok(['-n', 'q1', 'get', 'quota']);
  assert.match(table, /^NAME\s+AGE\s+REQUEST\s+LIMIT\s*$/m);
  assert.match(table, /^two\s+\S+\s+pods: 2\/2, requests.cpu: 200m\/1\s*$/m);
  const described = await k.ok(['-n', 'q1', 'describe', 'quota', 'two']);
  assert.match(described, /^Resource\s+Used\s+Hard$/m);
  assert.match(described, /^pods\s+2\s+2$/m);
  assert.match(described, /^requests.cpu\s+200m\s+1$/m);
  await k.ok(['-n', 'q1', 'delete', 'pod', 'a', '--grace-period=0', '--force']);
  await waitFor('status.used going down', async () => ((await used('q1', 'two')).pods === '1' ? true : undefined));
  assert.equal((await used('q1', 'two'))['requests.cpu'], '100m');
  await k.ok(['create', '-f', '-'], { input: pod('c', 'q1', cpu) });
});

test('concurrent creates never take more than the quota allows: charges are compare-and-swap', async () => {
  await k.ok(['create', 'ns', 'q3']);
  await k.ok(['-n', 'q3', 'create', 'quota', 'three', '--hard=pods=3']);
  await waitFor('status.used computed', async () => ((await used('q3', 'three')).pods === '0' ? true : undefined));
  const client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  try {
    const pods = client.resource<Pod>(RESOURCES.pods);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => pods.create(JSON.parse(pod(`p${i}`, 'q3')) as Pod, { namespace: 'q3' })),
    );
    const admitted = results.filter((r) => r.status === 'fulfilled').length;
    assert.equal(admitted, 3);
    for (const r of results)
      if (r.status === 'rejected')
        assert.match(String(r.reason), /exceeded quota: three, requested: pods=1, used: pods=3, limited: pods=3/);
    assert.equal((await pods.list({ namespace: 'q3' })).items.length, 3);
    assert.equal((await used('q3', 'three')).pods, '3');
  } finally {
    client.close();
  }
});

test('a requests.cpu quota refuses a pod without a cpu request: must specify', async () => {
  await k.ok(['create', 'ns', 'q2']);
  await k.ok(['-n', 'q2', 'create', 'quota', 'cpu', '--hard=requests.cpu=1']);
  await waitFor('status.used computed', async () =>
    (await used('q2', 'cpu'))['requests.cpu'] === '0' ? true : undefined,
  );
  const err = await k.fails(['create', '-f', '-'], { input: pod('bare', 'q2') });
  assert.match(err, /pods "bare" is forbidden: failed quota: cpu: must specify requests.cpu for: app/);
});

test('LimitRange defaults appear on a created pod, a pod above max is a 403, and describe limits prints them', async () => {
  await k.ok(['create', 'ns', 'l1']);
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits', namespace: 'l1' },
      spec: {
        limits: [
          {
            type: 'Container',
            default: { cpu: '500m', memory: '128Mi' },
            defaultRequest: { cpu: '100m' },
            max: { cpu: '1' },
          },
        ],
      },
    }),
  });
  // The informer feeding the plugin sees the LimitRange within a moment of its creation.
  const created = await waitFor('defaults applied', async () => {
    await k.run(['-n', 'l1', 'delete', 'pod', 'd', '--ignore-not-found', '--grace-period=0', '--force']);
    await k.ok(['create', '-f', '-'], { input: pod('d', 'l1') });
    const p = (await k.getJSON(['-n', 'l1', 'pod', 'd'])) as {
      spec: { containers: { resources?: Record<string, Record<string, string>> }[] };
      metadata: { annotations?: Record<string, string> };
    };
    return p.spec.containers[0]!.resources?.limits?.cpu === undefined ? undefined : p;
  });
  assert.deepEqual(created.spec.containers[0]!.resources, {
    limits: { cpu: '500m', memory: '128Mi' },
    requests: { cpu: '100m', memory: '128Mi' },
  });
  assert.match(created.metadata.annotations?.['kubernetes.io/limit-ranger'] ?? '', /LimitRanger plugin set: /);
  const err = await k.fails(['create', '-f', '-'], { input: pod('big', 'l1', { limits: { cpu: '2' } }) });
  assert.match(err, /pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/);
  const described = await k.ok(['-n', 'l1', 'describe', 'limits', 'limits']);
  assert.match(described, /^Container\s+cpu\s+-\s+1\s+100m\s+500m\s+-$/m);
  assert.match(described, /^Container\s+memory\s+-\s+-\s+128Mi\s+128Mi\s+-$/m);
  assert.match(await k.ok(['-n', 'l1', 'get', 'limits']), /^NAME\s+CREATED AT\s*$/m);
});

test('bad quotas and limit ranges are 422s with upstream texts', async () => {
  const q = await k.fails(['create', 'quota', 'bad', '--hard=foo=1,pods=1.5']);
  assert.match(q, /spec.hard\[foo\]: Invalid value: "foo": must be a standard resource for quota/);
  assert.match(q, /spec.hard\[pods\]: Invalid value: "1500m": must be an integer/);
  const lr = await k.fails(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'inverted' },
      spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] },
    }),
  });
  assert.match(lr, /spec.limits\[0\].min\[cpu\]: Invalid value: "2": min value 2 is greater than max value 1/);
});

test('updates are charged what they add: a Service turned NodePort and a claim raised past the quota are 403s', async () => {
  await k.ok(['create', 'ns', 'qupd']);
  await k.ok(['-n', 'qupd', 'create', 'quota', 'np', '--hard=services.nodeports=1,requests.storage=3Gi']);
  await waitFor('status.used computed', async () =>
    (await used('qupd', 'np'))['services.nodeports'] === '0' ? true : undefined,
  );
  await k.ok(['-n', 'qupd', 'create', 'service', 'clusterip', 'a', '--tcp=80']);
  await k.ok(['-n', 'qupd', 'create', 'service', 'clusterip', 'b', '--tcp=80']);
  await k.ok(['-n', 'qupd', 'patch', 'svc', 'a', '-p', '{"spec":{"type":"NodePort"}}']);
  assert.equal((await used('qupd', 'np'))['services.nodeports'], '1');
  // Changing something else on a NodePort Service adds nothing, so it passes a full quota.
  await k.ok(['-n', 'qupd', 'label', 'svc', 'a', 'x=y']);
  const err = await k.fails(['-n', 'qupd', 'patch', 'svc', 'b', '-p', '{"spec":{"type":"NodePort"}}']);
  assert.match(
    err,
    /services "b" is forbidden: exceeded quota: np, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1/,
  );
  await k.ok(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'qupd' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    }),
  });
  await waitFor('the claim is bound', async () =>
    (await k.getJSON(['-n', 'qupd', 'pvc', 'data'])).status?.phase === 'Bound' ? true : undefined,
  );
  const resize = (size: string): string[] => [
    '-n',
    'qupd',
    'patch',
    'pvc',
    'data',
    '-p',
    JSON.stringify({ spec: { resources: { requests: { storage: size } } } }),
  ];
  await k.ok(resize('2Gi'));
  assert.equal((await used('qupd', 'np'))['requests.storage'], '2Gi');
  const err2 = await k.fails(resize('4Gi'));
  assert.match(
    err2,
    /persistentvolumeclaims "data" is forbidden: exceeded quota: np, requested: requests.storage=2Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi/,
  );
});
