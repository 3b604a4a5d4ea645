import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Affinity, NodeSelectorTerm } from '../../../api/index.js';
import { makeNode, makePod, makeSnapshot, runFilter, runScore } from '../../testing/wrappers.js';
import { CycleState } from '../../framework/cycle_state.js';
import { nodeAffinity, requiredNodeNames } from './index.js';

const MISMATCH = "node(s) didn't match Pod's node affinity/selector";
const required = (...terms: NodeSelectorTerm[]): Affinity => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
});
const nodes = () => [
  makeNode('a1', { labels: { zone: 'a', cores: '8' } }),
  makeNode('b1', { labels: { zone: 'b', cores: '32', disk: 'ssd' } }),
  makeNode('bare'),
];

const filterCases: {
  name: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  want: Record<string, string>;
}[] = [
  { name: 'no constraints: every node fits (PreFilter skips)', want: { a1: '', b1: '', bare: '' } },
  {
    name: 'nodeSelector matches labels exactly',
    nodeSelector: { zone: 'a' },
    want: { a1: '', b1: MISMATCH, bare: MISMATCH },
  },
  {
    name: 'In',
    affinity: required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b', 'c'] }] }),
    want: { a1: MISMATCH, b1: '', bare: MISMATCH },
  },
  {
    name: 'NotIn matches nodes without the label',
    affinity: required({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }),
    want: { a1: MISMATCH, b1: '', bare: '' },
  },
  {
    name: 'Exists',
    affinity: required({ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }),
    want: { a1: MISMATCH, b1: '', bare: MISMATCH },
  },
  {
    name: 'DoesNotExist',
    affinity: required({ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }),
    want: { a1: '', b1: MISMATCH, bare: '' },
  },
  {
    name: 'Gt compares integers',
    affinity: required({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['16'] }] }),
    want: { a1: MISMATCH, b1: '', bare: MISMATCH },
  },
  {
    name: 'Lt compares integers',
    affinity: required({ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['16'] }] }),
    want: { a1: '', b1: MISMATCH, bare: MISMATCH },
  },
  {
    name: 'matchFields on metadata.name',
    affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['bare'] }] }),
    want: { a1: MISMATCH, b1: MISMATCH, bare: '' },
  },
  {
    name: 'terms are ORed',
    affinity: required(
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['bare'] }] },
    ),
    want: { a1: '', b1: MISMATCH, bare: '' },
  },
  {
    name: 'requirements within a term are ANDed',
    affinity: required({
      matchExpressions: [
        { key: 'zone', operator: 'In', values: ['a', 'b'] },
        { key: 'disk', operator: 'Exists' },
      ],
    }),
    want: { a1: MISMATCH, b1: '', bare: MISMATCH },
  },
  {
    name: 'an empty term matches nothing',
    affinity: required({}),
    want: { a1: MISMATCH, b1: MISMATCH, bare: MISMATCH },
  },
  {
    name: 'nodeSelector and affinity must both match',
    nodeSelector: { zone: 'b' },
    affinity: required({ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }),
    want: { a1: MISMATCH, b1: MISMATCH, bare: MISMATCH },
  },
];

for (const c of filterCases) {
  test(`NodeAffinity Filter: ${c.name}`, () => {
    const spec = {
      ...(c.nodeSelector !== undefined ? { nodeSelector: c.nodeSelector } : {}),
      ...(c.affinity !== undefined ? { affinity: c.affinity } : {}),
    };
    assert.deepEqual(runFilter(nodeAffinity(), makePod('p', { spec }), makeSnapshot(nodes())), c.want);
  });
}

test('NodeAffinity Score: sums the weights of matching preferred terms, normalised to the best node', () => {
  const affinity: Affinity = {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 2, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
        { weight: 8, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
      ],
    },
  };
  const snap = makeSnapshot([...nodes(), makeNode('a-ssd', { labels: { zone: 'a', disk: 'ssd' } })]);
  assert.deepEqual(runScore(nodeAffinity(), makePod('p', { spec: { affinity } }), snap), {
    a1: 20,
    b1: 80,
    bare: 0,
    'a-ssd': 100,
  });
});

test('NodeAffinity PreScore: skipped for a pod without preferred terms', () => {
  assert.equal(
    runScore(
      nodeAffinity(),
      makePod('p', { spec: { affinity: required({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }) } }),
      makeSnapshot(nodes()),
    ),
    undefined,
  );
});

test('NodeAffinity PreFilter names the nodes a metadata.name affinity pins the pod to (PreFilterResult)', () => {
  const pinned = required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['bare'] }] });
  const state = new CycleState();
  assert.equal(
    nodeAffinity().preFilter(state, makePod('p', { spec: { affinity: pinned } }), makeSnapshot(nodes())),
    null,
  );
  assert.deepEqual([...(state.nodeNames ?? [])], ['bare']);
  // Every term must pin names for the result to hold; a term by labels alone leaves every node possible.
  const mixed = required(
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['bare'] }] },
    { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
  );
  assert.equal(requiredNodeNames(makePod('p', { spec: { affinity: mixed } })), undefined);
  const two = required(
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a1'] }] },
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b1'] }] },
  );
  assert.deepEqual([...(requiredNodeNames(makePod('p', { spec: { affinity: two } })) ?? [])].sort(), ['a1', 'b1']);
});
