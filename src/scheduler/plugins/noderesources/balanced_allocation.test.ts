import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod, makeSnapshot, runScore, type PodOptions } from '../../testing/wrappers.js';
import { balancedAllocation } from './balanced_allocation.js';

// Score = 100 × (1 − |cpu fraction − memory fraction| / 2), the fractions counting the pod.
const cases: { name: string; pod: PodOptions; existing?: PodOptions; want: Record<string, number> }[] = [
  { name: 'equal fractions score 100', pod: { requests: { cpu: '1', memory: '2Gi' } }, want: { small: 100, wide: 93 } },
  {
    name: 'a CPU-heavy pod prefers the node with more CPU',
    pod: { requests: { cpu: '2', memory: '1Gi' } },
    want: { small: 81, wide: 93 },
  },
  {
    name: 'existing pods count',
    pod: { requests: { cpu: '1', memory: '1Gi' } },
    existing: { requests: { cpu: '0', memory: '3Gi' } },
    want: { small: 87, wide: 100 },
  },
];

for (const c of cases) {
  test(`NodeResourcesBalancedAllocation Score: ${c.name}`, () => {
    const nodes = [
      makeNode('small', { allocatable: { cpu: '4', memory: '8Gi' } }),
      makeNode('wide', { allocatable: { cpu: '8', memory: '8Gi' } }),
    ];
    const snap = makeSnapshot(nodes, c.existing === undefined ? [] : [[makePod('existing', c.existing), 'small']]);
    assert.deepEqual(runScore(balancedAllocation(), makePod('p', c.pod), snap), c.want);
  });
}
