import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod, makeSnapshot, runFilter, runScore, type PodOptions } from '../../testing/wrappers.js';
import { nodeResourcesFit, type ScoringStrategy } from './fit.js';

const GPU = 'nvidia.com/gpu';

const filterCases: {
  name: string;
  pod: PodOptions;
  existing?: PodOptions;
  allocatable?: Record<string, string>;
  ignored?: string[];
  want: string;
}[] = [
  {
    name: 'a pod that fits the free room',
    pod: { requests: { cpu: '1', memory: '1Gi' } },
    existing: { requests: { cpu: '2', memory: '4Gi' } },
    want: '',
  },
  {
    name: 'a pod with no requests fits a full node',
    pod: {},
    existing: { requests: { cpu: '4', memory: '8Gi' } },
    want: '',
  },
  {
    name: 'too little CPU left',
    pod: { requests: { cpu: '1' } },
    existing: { requests: { cpu: '3500m' } },
    want: 'Insufficient cpu',
  },
  {
    name: 'too little memory left',
    pod: { requests: { memory: '5Gi' } },
    existing: { requests: { memory: '4Gi' } },
    want: 'Insufficient memory',
  },
  {
    name: 'too little ephemeral storage',
    pod: { requests: { 'ephemeral-storage': '2Gi' } },
    allocatable: { 'ephemeral-storage': '1Gi' },
    want: 'Insufficient ephemeral-storage',
  },
  {
    name: 'the pod count is at allocatable pods',
    pod: {},
    existing: {},
    allocatable: { pods: '1' },
    want: 'Too many pods',
  },
  { name: 'a GPU pod on a node without GPUs', pod: { requests: { [GPU]: 1 } }, want: `Insufficient ${GPU}` },
  {
    name: 'a GPU pod on a node with a free GPU',
    pod: { requests: { [GPU]: 1 } },
    existing: { requests: { [GPU]: 1 } },
    allocatable: { [GPU]: '2' },
    want: '',
  },
  {
    name: 'a GPU pod where every GPU is taken',
    pod: { requests: { [GPU]: 1 } },
    existing: { requests: { [GPU]: 2 } },
    allocatable: { [GPU]: '2' },
    want: `Insufficient ${GPU}`,
  },
  {
    name: 'an ignored extended resource does not count',
    pod: { requests: { 'example.com/foo': 3 } },
    ignored: ['example.com/foo'],
    want: '',
  },
];

for (const c of filterCases) {
  test(`NodeResourcesFit Filter: ${c.name}`, () => {
    const node = makeNode('n1', c.allocatable !== undefined ? { allocatable: c.allocatable } : {});
    const snap = makeSnapshot([node], c.existing === undefined ? [] : [[makePod('existing', c.existing), 'n1']]);
    const plugin = nodeResourcesFit(c.ignored !== undefined ? { ignoredResources: c.ignored } : {});
    assert.deepEqual(runFilter(plugin, makePod('p', c.pod), snap), { n1: c.want });
  });
}

// n1 is empty; n2 already runs 2 CPUs and 4Gi; both have 4 CPUs and 8Gi. The pod asks for 1 CPU and 2Gi,
// so it would use 25% of n1 and 75% of n2.
const scoreCases: { name: string; strategy?: ScoringStrategy; want: Record<string, number> }[] = [
  { name: 'LeastAllocated (the default) prefers the emptier node', want: { n1: 75, n2: 25 } },
  { name: 'MostAllocated packs onto the fuller node', strategy: { type: 'MostAllocated' }, want: { n1: 25, n2: 75 } },
  {
    name: 'RequestedToCapacityRatio follows its shape',
    strategy: {
      type: 'RequestedToCapacityRatio',
      requestedToCapacityRatio: {
        shape: [
          { utilization: 0, score: 0 },
          { utilization: 100, score: 10 },
        ],
      },
    },
    want: { n1: 25, n2: 75 },
  },
  {
    name: 'RequestedToCapacityRatio with the default shape spreads',
    strategy: { type: 'RequestedToCapacityRatio' },
    want: { n1: 75, n2: 25 },
  },
  {
    name: 'resource weights: memory only',
    strategy: { type: 'LeastAllocated', resources: [{ name: 'memory', weight: 1 }] },
    want: { n1: 75, n2: 25 },
  },
];

for (const c of scoreCases) {
  test(`NodeResourcesFit Score: ${c.name}`, () => {
    const snap = makeSnapshot(
      [makeNode('n1'), makeNode('n2')],
      [[makePod('existing', { requests: { cpu: '2', memory: '4Gi' } }), 'n2']],
    );
    const plugin = nodeResourcesFit(c.strategy !== undefined ? { scoringStrategy: c.strategy } : {});
    assert.deepEqual(runScore(plugin, makePod('p', { requests: { cpu: '1', memory: '2Gi' } }), snap), c.want);
  });
}

test('NodeResourcesFit Score: GPUs steer a GPU pod by the strategy, and do not steer a pod that asks for none', () => {
  const strategy: ScoringStrategy = { type: 'MostAllocated', resources: [{ name: GPU, weight: 1 }] };
  const snap = makeSnapshot(
    [
      makeNode('g1', { allocatable: { [GPU]: '4' } }),
      makeNode('g2', { allocatable: { [GPU]: '4' } }),
      makeNode('cpu-only'),
    ],
    [[makePod('trainer', { requests: { [GPU]: 2 } }), 'g2']],
  );
  const plugin = nodeResourcesFit({ scoringStrategy: strategy });
  assert.deepEqual(runScore(plugin, makePod('p', { requests: { [GPU]: 1 } }), snap), { g1: 25, g2: 75, 'cpu-only': 0 });
  assert.deepEqual(runScore(plugin, makePod('q', { requests: { cpu: '1' } }), snap), { g1: 0, g2: 0, 'cpu-only': 0 });
});

test('NodeResourcesFit Score: a pod without requests is scored with the default 100m CPU and 200Mi', () => {
  const snap = makeSnapshot([makeNode('n1', { allocatable: { cpu: '1', memory: '2000Mi' } })]);
  // CPU (1000 - 100) / 1000 = 90, memory (2000 - 200) / 2000 = 90.
  assert.deepEqual(runScore(nodeResourcesFit(), makePod('p'), snap), { n1: 90 });
});
