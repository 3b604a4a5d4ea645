import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from '../defaults.js';
import { errorString } from './field.js';
import { validateCreate, validateUpdate } from './index.js';
import type { KubeObject } from '../types.js';

const texts = (resource: string, obj: KubeObject, old?: KubeObject): string[] =>
  (old === undefined ? validateCreate(resource, obj) : validateUpdate(resource, obj, old)).map(errorString);

const pv = (spec: object): KubeObject =>
  applyDefaults('persistentvolumes', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv' }, spec });
const pvc = (spec: object, phase?: string): KubeObject =>
  applyDefaults('persistentvolumeclaims', {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'default' },
    spec,
    ...(phase ? { status: { phase } } : {}),
  });
const claimSpec = {
  accessModes: ['ReadWriteOnce'],
  resources: { requests: { storage: '1Gi' } },
  storageClassName: 'a',
};

test('volumes, claims and classes get upstream defaults', () => {
  const v = pv({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } });
  assert.equal((v.spec as { persistentVolumeReclaimPolicy: string }).persistentVolumeReclaimPolicy, 'Retain');
  assert.equal((v.spec as { volumeMode: string }).volumeMode, 'Filesystem');
  assert.equal((v.status as { phase: string }).phase, 'Pending');
  assert.equal((pvc(claimSpec).spec as { volumeMode: string }).volumeMode, 'Filesystem');
  const sc: KubeObject = applyDefaults('storageclasses', { metadata: { name: 's' }, provisioner: 'kscale.io/hollow' });
  assert.deepEqual([sc.reclaimPolicy, sc.volumeBindingMode], ['Delete', 'Immediate']);
});

test('a volume needs access modes, a storage capacity and exactly one source', () => {
  const cases: [string, object, string[]][] = [
    ['valid', { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } }, []],
    [
      'nothing',
      {},
      [
        'spec.accessModes: Required value',
        'spec.capacity: Required value',
        'spec: Required value: must specify a volume type',
      ],
    ],
    [
      'bad mode, zero size, two sources',
      { capacity: { storage: '0' }, accessModes: ['Sometimes'], hostPath: { path: '/x' }, local: { path: '/y' } },
      [
        'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"',
        'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
        'spec.local: Forbidden: may not specify more than 1 volume type',
      ],
    ],
  ];
  for (const [name, spec, want] of cases) assert.deepEqual(texts('persistentvolumes', pv(spec)), want, name);
});

test('a claim needs access modes and a storage request', () => {
  assert.deepEqual(texts('persistentvolumeclaims', pvc(claimSpec)), []);
  assert.deepEqual(texts('persistentvolumeclaims', pvc({})), [
    'spec.accessModes: Required value: at least 1 access mode is required',
    'spec.resources[storage]: Required value',
  ]);
});

test('a claim spec is immutable except binding once, setting an unset class, and growing when bound', () => {
  const forbidden =
    'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';
  const grow = { ...claimSpec, resources: { requests: { storage: '2Gi' } } };
  const shrink = { ...claimSpec, resources: { requests: { storage: '500Mi' } } };
  const cases: [string, KubeObject, KubeObject, string[]][] = [
    ['volumeName set once', pvc({ ...claimSpec, volumeName: 'pv' }), pvc(claimSpec), []],
    ['volumeName changed', pvc({ ...claimSpec, volumeName: 'b' }), pvc({ ...claimSpec, volumeName: 'a' }), [forbidden]],
    ['class changed', pvc({ ...claimSpec, storageClassName: 'b' }), pvc(claimSpec), [forbidden]],
    ['class set where unset', pvc(claimSpec), pvc({ ...claimSpec, storageClassName: undefined }), []],
    ['bound claim grows', pvc(grow, 'Bound'), pvc(claimSpec, 'Bound'), []],
    ['pending claim grows', pvc(grow), pvc(claimSpec), [forbidden]],
    [
      'bound claim shrinks',
      pvc(shrink, 'Bound'),
      pvc(claimSpec, 'Bound'),
      ['spec.resources.requests.storage: Forbidden: field can not be less than previous value'],
    ],
  ];
  for (const [name, obj, old, want] of cases) assert.deepEqual(texts('persistentvolumeclaims', obj, old), want, name);
});

test('a StorageClass keeps its provisioner, parameters, reclaim policy and binding mode', () => {
  const sc = (o: object): KubeObject => applyDefaults('storageclasses', { metadata: { name: 's' }, ...o });
  assert.deepEqual(texts('storageclasses', sc({})), ['provisioner: Required value']);
  assert.deepEqual(
    texts(
      'storageclasses',
      sc({ provisioner: 'b', volumeBindingMode: 'WaitForFirstConsumer' }),
      sc({ provisioner: 'a' }),
    ),
    [
      'provisioner: Forbidden: updates to provisioner are forbidden.',
      'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ],
  );
});
