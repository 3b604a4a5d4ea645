import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  computeHash,
  equalIgnoreHash,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  setNewReplicaSetAnnotations,
} from './deployment_util.js';
import type { Deployment, ReplicaSet } from '../../api/index.js';

const d = (replicas: number, ru?: { maxSurge?: number | string; maxUnavailable?: number | string }): Deployment => ({
  metadata: { name: 'd', annotations: { 'kubernetes.io/change-cause': 'why' } },
  spec: {
    replicas,
    strategy: { type: 'RollingUpdate', ...(ru ? { rollingUpdate: ru } : {}) },
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});

test('pod-template-hash is stable, safe-encoded, and changes with the template and the collision count', () => {
  const t = d(1).spec!.template;
  const h = computeHash(t, undefined);
  assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.equal(computeHash(structuredClone(t), undefined), h);
  assert.notEqual(computeHash(t, 1), h);
  assert.notEqual(computeHash({ ...t, spec: { containers: [{ name: 'c', image: 'y' }] } }, undefined), h);
});

test('templates equal but for pod-template-hash, nulls and empty structs are equal', () => {
  const a = {
    metadata: { labels: { a: 'b', 'pod-template-hash': 'x' } },
    spec: { containers: [{ name: 'c', resources: {} }] },
  };
  const b = { metadata: { creationTimestamp: null, labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] } };
  assert.equal(equalIgnoreHash(a, b as never), true);
  assert.equal(equalIgnoreHash(a, { metadata: { labels: { a: 'c' } }, spec: b.spec }), false);
});

test('maxSurge rounds up and maxUnavailable down; both zero makes maxUnavailable 1', () => {
  assert.equal(maxSurge(d(10)), 3);
  assert.equal(maxUnavailable(d(10)), 2);
  assert.equal(maxUnavailable(d(10, { maxSurge: 0, maxUnavailable: 0 })), 1);
  assert.equal(maxUnavailable(d(3, { maxUnavailable: 5 })), 3, 'never above replicas');
});

test('the new ReplicaSet grows only within replicas + maxSurge', () => {
  const dep = d(10, { maxSurge: 2 });
  const oldRS: ReplicaSet = { spec: { replicas: 10 } };
  const newRS: ReplicaSet = { spec: { replicas: 0 } };
  assert.equal(newRSNewReplicas(dep, [oldRS, newRS], newRS), 2);
  assert.equal(newRSNewReplicas(dep, [{ spec: { replicas: 12 } }, newRS], newRS), 0);
});

test('a ReplicaSet brought back by a rollback gets the new revision and keeps the old one in its history', () => {
  const rs: ReplicaSet = { metadata: { annotations: { [REVISION_ANNOTATION]: '1' } } };
  assert.equal(setNewReplicaSetAnnotations(d(1), rs, 3, true), true);
  assert.equal(rs.metadata!.annotations![REVISION_ANNOTATION], '3');
  assert.equal(rs.metadata!.annotations![REVISION_HISTORY_ANNOTATION], '1');
  assert.equal(rs.metadata!.annotations!['kubernetes.io/change-cause'], 'why');
  assert.equal(setNewReplicaSetAnnotations(d(1), rs, 3, true), false, 'nothing changes twice');
});
