import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES } from '../../../client/index.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../api/index.js';
import { fakeHandle, makeNode, makePod, makeSnapshot, runFilter } from '../../testing/wrappers.js';
import { CycleState } from '../../framework/cycle_state.js';
import { Code } from '../../framework/status.js';
import { podClaimNames, volumeBinding } from './index.js';

const CONFLICT = 'node(s) had volume node affinity conflict';
const claim = (name: string, cls: string, volumeName?: string, deleting = false): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { storageClassName: cls, ...(volumeName ? { volumeName } : {}) },
});
const pinned = (name: string, node: string): PersistentVolume => ({
  metadata: { name },
  spec: {
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }],
      },
    },
  },
});
const classes: StorageClass[] = [
  { metadata: { name: 'now' }, provisioner: 'kscale.io/hollow', volumeBindingMode: 'Immediate' },
  { metadata: { name: 'later' }, provisioner: 'kscale.io/hollow', volumeBindingMode: 'WaitForFirstConsumer' },
];

const cases: { name: string; claims: string[]; want: Record<string, string> }[] = [
  { name: 'a pod without claims fits every node (PreFilter skips)', claims: [], want: { n1: '', n2: '' } },
  {
    name: 'a missing claim is unresolvable',
    claims: ['nope'],
    want: { PreFilter: 'persistentvolumeclaim "nope" not found' },
  },
  {
    name: 'a deleting claim is unresolvable',
    claims: ['gone'],
    want: { PreFilter: 'persistentvolumeclaim "gone" is being deleted' },
  },
  {
    name: 'an unbound Immediate claim waits for the binder',
    claims: ['pending'],
    want: { PreFilter: 'pod has unbound immediate PersistentVolumeClaims' },
  },
  { name: 'an unbound WaitForFirstConsumer claim fits every node', claims: ['wffc'], want: { n1: '', n2: '' } },
  { name: 'a claim bound to a volume pinned to n2 fits only n2', claims: ['onn2'], want: { n1: CONFLICT, n2: '' } },
  { name: 'a claim bound to an unpinned volume fits every node', claims: ['free'], want: { n1: '', n2: '' } },
];

for (const c of cases) {
  test(`VolumeBinding Filter: ${c.name}`, () => {
    const nodes = ['n1', 'n2'].map((n) => makeNode(n, { labels: { 'kubernetes.io/hostname': n } }));
    const snap = makeSnapshot(nodes);
    const handle = fakeHandle(snap);
    const informers = handle.informerFactory();
    const claims = [
      claim('gone', 'now', undefined, true),
      claim('pending', 'now'),
      claim('wffc', 'later'),
      claim('onn2', 'later', 'pv-n2'),
      claim('free', 'now', 'pv-free'),
    ];
    for (const x of claims) informers.informerFor(RESOURCES.persistentvolumeclaims).indexer.add(x);
    for (const x of [pinned('pv-n2', 'n2'), { metadata: { name: 'pv-free' }, spec: {} }])
      informers.informerFor(RESOURCES.persistentvolumes).indexer.add(x);
    for (const x of classes) informers.informerFor(RESOURCES.storageclasses).indexer.add(x);
    const volumes = c.claims.map((n, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: n } }));
    const pod = makePod('p', { spec: { volumes } as object });
    assert.deepEqual(runFilter(volumeBinding({}, handle), pod, snap), c.want);
  });
}

test('a pod without claims costs VolumeBinding no allocation and no promise: Skip, no state, PreBind answers null at once', () => {
  const snap = makeSnapshot([makeNode('n1')]);
  const plugin = volumeBinding({}, fakeHandle(snap));
  const plain = makePod('plain', { spec: { volumes: [{ name: 'cfg', configMap: { name: 'c' } }] } as object });
  assert.equal(podClaimNames(plain), podClaimNames(makePod('other')), 'the same frozen empty list');
  const state = new CycleState();
  assert.equal(plugin.preFilter(state, plain, snap)?.code, Code.Skip);
  assert.equal(state.read('PreFilterVolumeBinding'), undefined);
  const r = plugin.preBind(state, plain, 'n1');
  assert.equal(r, null, 'a synchronous null, not a promise');
});

test('VolumeBinding registers for claim, volume and class events; the claim hint picks the pod\u2019s own claims', () => {
  const plugin = volumeBinding({}, fakeHandle(makeSnapshot([])));
  const events = plugin.eventsToRegister();
  const pvc = events.find((e) => e.event.resource === 'persistentvolumeclaims.v1.');
  assert.ok(pvc?.hint !== undefined);
  assert.ok(events.some((e) => e.event.resource === 'persistentvolumes.v1.'));
  assert.ok(events.some((e) => e.event.resource === 'storageclasses.v1.storage.k8s.io'));
  const pod = makePod('p', {
    spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } as object,
  });
  assert.equal(pvc.hint(pod, undefined, claim('data', 'now')), true);
  assert.equal(pvc.hint(pod, undefined, claim('other', 'now')), false);
  assert.equal(
    pvc.hint(pod, undefined, { ...claim('data', 'now'), metadata: { name: 'data', namespace: 'x' } }),
    false,
  );
});
