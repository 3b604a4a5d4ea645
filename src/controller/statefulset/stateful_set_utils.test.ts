import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PersistentVolumeClaim, Pod, StatefulSet } from '../../api/index.js';
import {
  claimOwnerRefs,
  getPersistentVolumeClaims,
  newStatefulSetPod,
  planStatefulSet,
  sameOwners,
  statefulSetStatus,
  usesCurrentRevision,
} from './stateful_set_utils.js';

const set = (replicas: number, spec: Partial<NonNullable<StatefulSet['spec']>> = {}): StatefulSet => ({
  metadata: { name: 'web', namespace: 'ns', uid: 'u' },
  spec: {
    replicas,
    serviceName: 'svc',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } },
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    ...spec,
  },
});
const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
const pod = (ord: number, rev = 'r1', status: Pod['status'] = ready, deleting = false): Pod => ({
  metadata: {
    name: `web-${ord}`,
    labels: { app: 'web', 'controller-revision-hash': rev },
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { containers: [{ name: 'c' }] },
  status,
});
const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata?.name ?? '');

test('OrderedReady creates the lowest missing ordinal, one at a time, only after the ones below are Running and Ready', () => {
  assert.deepEqual(planStatefulSet(set(3), [], 'r1'), { create: [0], delete: [] });
  assert.deepEqual(planStatefulSet(set(3), [pod(0)], 'r1'), { create: [1], delete: [] });
  assert.deepEqual(planStatefulSet(set(3), [pod(0, 'r1', { phase: 'Pending' })], 'r1'), { create: [], delete: [] });
  // A gap is refilled first.
  assert.deepEqual(planStatefulSet(set(3), [pod(0), pod(2)], 'r1').create, [1]);
  assert.deepEqual(planStatefulSet(set(3, { podManagementPolicy: 'Parallel' }), [], 'r1').create, [0, 1, 2]);
});

test('scale down deletes the highest ordinal first and OrderedReady waits for it to go', () => {
  const pods = [pod(0), pod(1), pod(2), pod(3)];
  assert.deepEqual(names(planStatefulSet(set(1), pods, 'r1').delete), ['web-3']);
  assert.deepEqual(
    names(planStatefulSet(set(1), [pod(0), pod(1), pod(2), pod(3, 'r1', ready, true)], 'r1').delete),
    [],
  );
  assert.deepEqual(names(planStatefulSet(set(1, { podManagementPolicy: 'Parallel' }), pods, 'r1').delete), [
    'web-3',
    'web-2',
    'web-1',
  ]);
});

test('a rolling update replaces the highest outdated ordinal at or above the partition, waiting for health', () => {
  const pods = [pod(0), pod(1), pod(2)];
  assert.deepEqual(names(planStatefulSet(set(3), pods, 'r2').delete), ['web-2']);
  assert.deepEqual(names(planStatefulSet(set(3), [pod(0), pod(1), pod(2, 'r2')], 'r2').delete), ['web-1']);
  assert.deepEqual(
    names(planStatefulSet(set(3), [pod(0), pod(1), pod(2, 'r2', { phase: 'Pending' })], 'r2').delete),
    [],
  );
  const partitioned = set(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } });
  assert.deepEqual(names(planStatefulSet(partitioned, [pod(0), pod(1), pod(2, 'r2')], 'r2').delete), []);
  const onDelete = set(3, { updateStrategy: { type: 'OnDelete' } });
  assert.deepEqual(planStatefulSet(onDelete, pods, 'r2'), { create: [], delete: [] });
  // Below the partition a recreated pod keeps the current revision.
  assert.equal(usesCurrentRevision(partitioned, 1), true);
  assert.equal(usesCurrentRevision(partitioned, 2), false);
});

test('a failed pod is deleted to be recreated', () => {
  assert.deepEqual(names(planStatefulSet(set(2), [pod(0), pod(1, 'r1', { phase: 'Failed' })], 'r1').delete), ['web-1']);
});

test('pods get their identity: name, pod-name and pod-index labels, hostname, subdomain, claim volumes', () => {
  const s = set(1, { volumeClaimTemplates: [{ metadata: { name: 'data' } }] });
  const p = newStatefulSetPod(s, s.spec?.template, 4, 'web-abc');
  assert.equal(p.metadata?.name, 'web-4');
  assert.deepEqual(p.metadata?.labels, {
    app: 'web',
    'statefulset.kubernetes.io/pod-name': 'web-4',
    'apps.kubernetes.io/pod-index': '4',
    'controller-revision-hash': 'web-abc',
  });
  assert.equal(p.spec?.hostname, 'web-4');
  assert.equal(p.spec?.subdomain, 'svc');
  assert.deepEqual(p.spec?.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-4' } }]);
});

test('status counts pods per revision and makes the update revision current once every pod is updated and ready', () => {
  const s = set(3);
  const mid = statefulSetStatus(s, [pod(0, 'r1'), pod(1, 'r1'), pod(2, 'r2')], 'r1', 'r2', 0);
  assert.deepEqual(
    [mid.replicas, mid.readyReplicas, mid.currentReplicas, mid.updatedReplicas, mid.currentRevision],
    [3, 3, 2, 1, 'r1'],
  );
  const done = statefulSetStatus(s, [pod(0, 'r2'), pod(1, 'r2'), pod(2, 'r2')], 'r1', 'r2', 0);
  assert.deepEqual([done.currentReplicas, done.currentRevision], [3, 'r2']);
});

const withClaims = (whenDeleted: string, whenScaled: string, replicas = 2): StatefulSet =>
  set(replicas, {
    volumeClaimTemplates: [
      {
        metadata: { name: 'data', labels: { tier: 'db', app: 'mine' } },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        status: { phase: 'Bound' },
      },
    ],
    persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled },
  });

test('each volumeClaimTemplate becomes a claim <template>-<pod> in the set namespace, labelled with the selector', () => {
  const s = withClaims('Retain', 'Retain');
  const [claim] = getPersistentVolumeClaims(s, 'web-1');
  assert.equal(claim.metadata?.name, 'data-web-1');
  assert.equal(claim.metadata?.namespace, 'ns');
  assert.deepEqual(claim.metadata?.labels, { tier: 'db', app: 'web' });
  assert.equal(claim.kind, 'PersistentVolumeClaim');
  assert.equal(claim.status, undefined);
  assert.deepEqual(claim.spec?.resources?.requests, { storage: '1Gi' });
  // The template itself is not modified.
  assert.equal(s.spec?.volumeClaimTemplates?.[0].metadata?.name, 'data');
  const p = newStatefulSetPod(s, s.spec?.template, 1, 'r1');
  assert.deepEqual(p.spec?.volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } }]);
});

test('the retention policy decides the claim owners: the set on whenDeleted=Delete, a condemned pod on whenScaled=Delete', () => {
  const live = { ...pod(1), metadata: { ...pod(1).metadata, uid: 'p1' } };
  const condemned = { ...pod(3), metadata: { ...pod(3).metadata, uid: 'p3' } };
  const claim: PersistentVolumeClaim = {
    metadata: { name: 'data-web-1', ownerReferences: [{ apiVersion: 'x/v1', kind: 'Other', name: 'o', uid: 'o' }] },
  };
  const owners = (ws: StatefulSet, p: Pod): string[] => claimOwnerRefs(ws, p, claim).map((r) => `${r.kind}/${r.name}`);
  assert.deepEqual(owners(withClaims('Retain', 'Retain'), live), ['Other/o']);
  assert.deepEqual(owners(withClaims('Retain', 'Retain'), condemned), ['Other/o']);
  assert.deepEqual(owners(withClaims('Delete', 'Retain'), live), ['Other/o', 'StatefulSet/web']);
  assert.deepEqual(owners(withClaims('Delete', 'Retain'), condemned), ['Other/o', 'StatefulSet/web']);
  assert.deepEqual(owners(withClaims('Retain', 'Delete'), live), ['Other/o']);
  assert.deepEqual(owners(withClaims('Retain', 'Delete'), condemned), ['Other/o', 'Pod/web-3']);
  assert.deepEqual(owners(withClaims('Delete', 'Delete'), live), ['Other/o', 'StatefulSet/web']);
  assert.deepEqual(owners(withClaims('Delete', 'Delete'), condemned), ['Other/o', 'Pod/web-3']);
  // A pod not yet created (no uid) never owns its claim.
  assert.deepEqual(owners(withClaims('Delete', 'Delete'), pod(3)), ['Other/o', 'StatefulSet/web']);
  // A policy changed back to Retain drops the set's reference.
  const setOwned: PersistentVolumeClaim = {
    metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u' }] },
  };
  const retained = claimOwnerRefs(withClaims('Retain', 'Retain'), live, setOwned);
  assert.deepEqual(retained, []);
  assert.equal(sameOwners(setOwned.metadata?.ownerReferences, retained), false);
  assert.equal(
    sameOwners(setOwned.metadata?.ownerReferences, claimOwnerRefs(withClaims('Delete', 'Retain'), live, setOwned)),
    true,
  );
});
