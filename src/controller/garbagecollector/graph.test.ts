import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { GraphBuilder, type GraphNode } from './graph.js';

const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const obj = (name: string, uid: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject => ({
  metadata: { name, namespace: 'ns', uid, ...extra },
});
const ownedBy = (uid: string, name = 'rs') => ({
  ownerReferences: [{ ...RS, name, uid, controller: true, blockOwnerDeletion: true }],
});

function builder(): { g: GraphBuilder; toDelete: GraphNode[]; toOrphan: GraphNode[] } {
  const toDelete: GraphNode[] = [];
  const toOrphan: GraphNode[] = [];
  return {
    g: new GraphBuilder({ attemptToDelete: (n) => toDelete.push(n), attemptToOrphan: (n) => toOrphan.push(n) }),
    toDelete,
    toOrphan,
  };
}

test('a dependent seen before its owner creates a virtual owner to verify; seeing the owner makes it real', () => {
  const { g, toDelete } = builder();
  g.observe(obj('p', 'p1', ownedBy('r1')), POD);
  const owner = g.uidToNode.get('r1')!;
  assert.equal(owner.virtual, true);
  assert.deepEqual(toDelete, [owner]);
  g.observe(obj('rs', 'r1'), RS);
  assert.equal(owner.virtual, false);
  assert.equal(owner.dependents.size, 1);
});

test('deleting an owner queues its dependents; deleting a dependent of a foreground owner queues the owner', () => {
  const { g, toDelete } = builder();
  g.observe(obj('rs', 'r1'), RS);
  g.observe(obj('p', 'p1', ownedBy('r1')), POD);
  g.observe(obj('rs', 'r1', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }), RS);
  const owner = g.uidToNode.get('r1')!;
  assert.equal(owner.deletingDependents, true);
  assert.deepEqual(
    owner.blockingDependents().map((n) => n.identity.name),
    ['p'],
  );
  toDelete.length = 0;
  g.remove('p1');
  assert.deepEqual(toDelete, [owner], 'the owner is looked at again once its dependent is gone');
  assert.equal(owner.dependents.size, 0);
  toDelete.length = 0;
  g.observe(obj('p2', 'p2', ownedBy('r1')), POD);
  g.remove('r1');
  assert.deepEqual(
    toDelete.map((n) => n.identity.name),
    ['p2'],
  );
});

test('an owner deleted with the orphan finalizer goes to the orphan queue', () => {
  const { g, toOrphan } = builder();
  g.observe(obj('rs', 'r1', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['orphan'] }), RS);
  assert.deepEqual(
    toOrphan.map((n) => n.identity.uid),
    ['r1'],
  );
});

test('an update that moves a dependent to another owner moves it between the owners dependents', () => {
  const { g } = builder();
  g.observe(obj('rs', 'r1'), RS);
  g.observe(obj('rs2', 'r2'), RS);
  g.observe(obj('p', 'p1', ownedBy('r1')), POD);
  g.observe(obj('q', 'q1', ownedBy('r1')), POD);
  const [r1, r2, p] = ['r1', 'r2', 'p1'].map((u) => g.uidToNode.get(u)!);
  assert.deepEqual(
    [...r1!.dependents].map((n) => n.identity.name),
    ['p', 'q'],
  );
  assert.equal(p!.dependents.size, 0, 'a pod owns nothing');
  g.observe(obj('p', 'p1', ownedBy('r2', 'rs2')), POD);
  assert.deepEqual(
    [...r1!.dependents].map((n) => n.identity.name),
    ['q'],
  );
  assert.deepEqual(
    [...r2!.dependents].map((n) => n.identity.name),
    ['p'],
  );
  g.remove('q1');
  g.remove('p1');
  assert.equal(r1!.dependents.size, 0);
  assert.equal(r2!.dependents.size, 0);
  g.observe(obj('p', 'p3', ownedBy('r1')), POD);
  assert.deepEqual(
    [...r1!.dependents].map((n) => n.identity.name),
    ['p'],
    'an owner left with none takes new ones',
  );
});
