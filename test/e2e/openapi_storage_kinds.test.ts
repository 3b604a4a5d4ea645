/**
 * The OpenAPI schemas of HorizontalPodAutoscaler (autoscaling/v2 and v1),
 * NetworkPolicy, PersistentVolume, PersistentVolumeClaim and StorageClass,
 * through the real kubectl (1.27 and 1.33) against a real `kscale server`:
 * `kubectl explain` finds their fields, and kubectl's default strict field
 * validation refuses an unknown field with upstream's 400, while
 * `--validate=false` prunes it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, versionedKubectl, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

// Each kind's object, with `extra(kind)` merged into its spec (into the object itself for StorageClass, which has none).
const objects = (ns: string, extra: (kind: string) => Record<string, unknown>): Record<string, unknown>[] => [
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: `hpa-${ns}`, namespace: ns },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 2, ...extra('hpa') },
  },
  {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: `hpa1-${ns}`, namespace: ns },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 2, ...extra('hpa1') },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `np-${ns}`, namespace: ns },
    spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }], ...extra('np') },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv-${ns}` },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: '/srv/x' },
      storageClassName: 'manual',
      ...extra('pv'),
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: `pvc-${ns}`, namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra('pvc') },
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: `sc-${ns}` },
    provisioner: 'example.com/x',
    volumeBindingMode: 'WaitForFirstConsumer',
    ...extra('sc'),
  },
];

for (const minor of [27, 33]) {
  describe(`kubectl 1.${minor}`, () => {
    let k: Kubectl;
    const ns = `v${minor}`;
    before(async () => {
      k = new Kubectl(versionedKubectl(minor), server.kubeconfig);
      await k.ok(['create', 'namespace', ns]);
    });
    after(async () => {
      await k?.close();
    });

    test('kubectl explain finds the fields of HPA, NetworkPolicy, PV, PVC and StorageClass', async () => {
      const cases: [string[], RegExp][] = [
        [['hpa.spec.metrics'], /averageUtilization|resource/],
        [['hpa.spec', '--api-version=autoscaling/v1'], /targetCPUUtilizationPercentage/],
        [['networkpolicy.spec.ingress.ports'], /endPort/],
        [['pv.spec.csi'], /volumeHandle/],
        [['pvc.spec.resources'], /requests/],
        [['storageclass'], /volumeBindingMode/],
      ];
      for (const [args, want] of cases) assert.match(await k.ok(['explain', ...args]), want, args.join(' '));
    });

    test('an unknown field is a strict decoding error by default and pruned with --validate=false', async () => {
      for (const obj of objects(ns, () => ({ bogus: 1 }))) {
        const err = await k.fails(['create', '-f', '-'], { input: JSON.stringify(obj) });
        assert.match(err, /unknown field "(spec\.)?bogus"/, `${String(obj.kind)}: ${err}`);
      }
      for (const obj of objects(ns, () => ({ bogus: 1 }))) {
        await k.ok(['create', '--validate=false', '-f', '-'], { input: JSON.stringify(obj) });
        const md = obj.metadata as { name: string; namespace?: string };
        const resource = `${String(obj.kind).toLowerCase()}.${String(obj.apiVersion).split('/').reverse().join('.')}`;
        const got = await k.getJSON([
          ...(md.namespace ? ['-n', md.namespace] : []),
          String(obj.apiVersion) === 'v1' ? String(obj.kind).toLowerCase() : resource.replace(/\.v1$/, ''),
          md.name,
        ]);
        assert.equal((got.spec ?? got).bogus, undefined, `${String(obj.kind)} pruned`);
      }
    });
  });
}
