/**
 * PersistentVolumes, claims and StorageClasses against a real `kscale server`
 * and `kscale controller-manager` (persistentvolume-binder, pvc-protection,
 * pv-protection, hollow-provisioner), through the real kubectl: the default
 * `hollow` class, dynamic provisioning, static binding, pvc-protection
 * holding a claim in use, and the immutable claim spec.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfig, RESOURCES, RESTClient, isNotFoundError, type ResourceClient } from '../../src/client/index.js';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../../src/api/index.js';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { waitFor } from './fixtures/cluster.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';

const NS = 'default';
let server: TestServer;
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let client: RESTClient;
let k: Kubectl;
let pvs: ResourceClient<PersistentVolume>;
let pvcs: ResourceClient<PersistentVolumeClaim>;

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  pvs = client.resource<PersistentVolume>(RESOURCES.persistentvolumes);
  pvcs = client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
  k = new Kubectl(kubectlPath(), server.kubeconfig);
  cm = await startControllerManagerProcess(server.kubeconfig, [
    '--controllers',
    'persistentvolume-binder,pvc-protection,pv-protection,hollow-provisioner',
  ]);
});
after(async () => {
  await cm?.stop();
  client?.close();
  await server?.stop();
});

const claim = (name: string, spec: Record<string, unknown> = {}): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
  });

const bound = (name: string): Promise<PersistentVolumeClaim> =>
  waitFor(`claim ${name} Bound`, async () => {
    const c = await pvcs.get(name, { namespace: NS });
    return c.status?.phase === 'Bound' ? c : undefined;
  });

test('the server installs the default hollow StorageClass, printed with the (default) marker', async () => {
  const out = await k.ok(['get', 'sc']);
  assert.match(out, /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE/m);
  assert.match(out, /^hollow \(default\)\s+kscale\.io\/hollow\s+Delete\s+Immediate\s+true\s/m);
});

test('a claim naming no class gets the default class, a provisioned volume, and both sides Bound', async () => {
  await k.ok(['create', '-f', '-'], { input: claim('data') });
  const c = await bound('data');
  assert.equal(c.spec?.storageClassName, 'hollow', 'DefaultStorageClass filled the class');
  assert.deepEqual(c.metadata?.finalizers, ['kubernetes.io/pvc-protection']);
  assert.equal(c.metadata?.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
  assert.equal(c.spec?.volumeName, `pvc-${c.metadata!.uid!}`);
  assert.equal(c.status?.capacity?.storage, '1Gi');
  const pv = await waitFor('volume Bound', async () => {
    const v = await pvs.get(c.spec!.volumeName!);
    return v.status?.phase === 'Bound' ? v : undefined;
  });
  assert.equal(pv.spec?.claimRef?.uid, c.metadata!.uid);
  assert.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Delete');
  assert.deepEqual(pv.metadata?.finalizers, ['kubernetes.io/pv-protection']);
  const out = await k.ok(['get', 'pv,pvc']);
  assert.match(
    out,
    new RegExp(
      `persistentvolume/${pv.metadata!.name!}\\s+1Gi\\s+RWO\\s+Delete\\s+Bound\\s+default/data\\s+hollow\\s+<unset>`,
    ),
  );
  assert.match(
    out,
    new RegExp(`persistentvolumeclaim/data\\s+Bound\\s+${pv.metadata!.name!}\\s+1Gi\\s+RWO\\s+hollow\\s+<unset>`),
  );
});

test('a claim binds statically to the smallest matching Available volume of its class', async () => {
  const pv = (name: string, size: string): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, labels: { tier: 'gold' } },
      spec: {
        capacity: { storage: size },
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        storageClassName: 'manual',
        hostPath: { path: `/tmp/${name}` },
      },
    });
  await k.ok(['create', '-f', '-'], { input: pv('big', '10Gi') });
  await k.ok(['create', '-f', '-'], { input: pv('small', '2Gi') });
  await waitFor('volumes Available', async () =>
    (await pvs.get('small')).status?.phase === 'Available' ? true : undefined,
  );
  await k.ok(['create', '-f', '-'], {
    input: claim('static', { storageClassName: 'manual', selector: { matchLabels: { tier: 'gold' } } }),
  });
  const c = await bound('static');
  assert.equal(c.spec?.volumeName, 'small');
  assert.equal(c.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
  const small = await pvs.get('small');
  assert.equal(small.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
  assert.equal(small.spec?.claimRef?.name, 'static');
  assert.equal((await pvs.get('big')).status?.phase, 'Available');
});

test('claims made at once each get their own provisioned volume; static ones never share a volume', async () => {
  // The binder syncs claims several at a time; each of these has its own volume.
  const names = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
  await Promise.all(
    names.map((name) => pvcs.create(JSON.parse(claim(name)) as PersistentVolumeClaim, { namespace: NS })),
  );
  const claims = await Promise.all(names.map(bound));
  for (const c of claims) assert.equal(c.spec?.volumeName, `pvc-${c.metadata?.uid}`, c.metadata?.name);
  for (const c of claims) assert.equal((await pvs.get(c.spec!.volumeName!)).spec?.claimRef?.name, c.metadata?.name);
  // Three claims race for two free volumes of a class nobody provisions: two bind, each to its own, one waits.
  for (const name of ['race-a', 'race-b'])
    await pvs.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'race',
        hostPath: { path: `/tmp/${name}` },
      },
    } as PersistentVolume);
  await waitFor('race volumes Available', async () =>
    (await pvs.get('race-b')).status?.phase === 'Available' ? true : undefined,
  );
  await Promise.all(
    ['race-1', 'race-2', 'race-3'].map((name) =>
      pvcs.create(JSON.parse(claim(name, { storageClassName: 'race' })) as PersistentVolumeClaim, {
        namespace: NS,
      }),
    ),
  );
  const volumesOfRace = await waitFor('two race claims Bound', async () => {
    const list = (await pvcs.list({ namespace: NS })).items.filter((c) => c.metadata?.name?.startsWith('race-'));
    const boundTo = list.filter((c) => c.status?.phase === 'Bound').map((c) => c.spec?.volumeName);
    return boundTo.length === 2 ? boundTo : undefined;
  });
  assert.deepEqual([...volumesOfRace].sort(), ['race-a', 'race-b']);
  // A later pass does not bind the third to a taken volume.
  await new Promise((r) => setTimeout(r, 1_500));
  const pending = (await pvcs.list({ namespace: NS })).items.filter(
    (c) => c.metadata?.name?.startsWith('race-') && c.status?.phase !== 'Bound',
  );
  assert.equal(pending.length, 1);
  assert.equal(pending[0]!.spec?.volumeName ?? '', '');
});

test("changing a claim's storageClassName is a 422", async () => {
  await k.ok(['create', '-f', '-'], { input: claim('fixed', { storageClassName: 'hollow' }) });
  const err = await k.fails(['patch', 'pvc', 'fixed', '-p', '{"spec":{"storageClassName":"other"}}']);
  assert.match(err, /PersistentVolumeClaim "fixed" is invalid: spec: Forbidden: spec is immutable after creation/);
  try {
    await pvcs.patch('fixed', 'merge', { spec: { storageClassName: 'other' } }, { namespace: NS });
    assert.fail('the patch was accepted');
  } catch (err) {
    assert.equal((err as { code?: number }).code, 422);
  }
});

test('a claim in use stays Terminating until its pod goes; then its released hollow volume is deleted', async () => {
  await k.ok(['create', '-f', '-'], { input: claim('inuse') });
  const c = await bound('inuse');
  const pods = client.resource<Pod>(RESOURCES.pods);
  await pods.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'user', namespace: NS },
    spec: {
      containers: [{ name: 'c', image: 'busybox' }],
      volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'inuse' } }],
    },
  } as Pod);
  await k.ok(['delete', 'pvc', 'inuse', '--wait=false']);
  // Several binder and protection passes (500 ms each) go by: the finalizer stays while the pod exists.
  await new Promise((r) => setTimeout(r, 2_000));
  const held = await pvcs.get('inuse', { namespace: NS });
  assert.ok(held.metadata?.deletionTimestamp, 'the claim is being deleted');
  assert.deepEqual(held.metadata?.finalizers, ['kubernetes.io/pvc-protection']);
  assert.match(await k.ok(['get', 'pvc', 'inuse']), /inuse\s+Terminating/);
  await pods.delete('user', { namespace: NS, gracePeriodSeconds: 0 });
  await waitFor('claim gone', async () => {
    try {
      await pvcs.get('inuse', { namespace: NS });
      return undefined;
    } catch (err) {
      return isNotFoundError(err) ? true : undefined;
    }
  });
  await waitFor('released volume deleted', async () => {
    try {
      await pvs.get(c.spec!.volumeName!);
      return undefined;
    } catch (err) {
      return isNotFoundError(err) ? true : undefined;
    }
  });
});
