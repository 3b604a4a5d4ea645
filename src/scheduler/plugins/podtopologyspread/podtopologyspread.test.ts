import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TopologySpreadConstraint } from '../../../api/index.js';
import { fakeHandle, makeNode, makePod, makeSnapshot, runFilter, runScore } from '../../testing/wrappers.js';
import { podTopologySpread } from './index.js';

const SKEW = "node(s) didn't match pod topology spread constraints";
const MISSING = "node(s) didn't match pod topology spread constraints (missing required label)";
const web = { app: 'web' };
const spread = (
  whenUnsatisfiable: TopologySpreadConstraint['whenUnsatisfiable'],
  extra: Partial<TopologySpreadConstraint> = {},
): TopologySpreadConstraint => ({
  maxSkew: 1,
  topologyKey: 'zone',
  whenUnsatisfiable,
  labelSelector: { matchLabels: web },
  ...extra,
});

/** Zones a (a1, a2) and b (b1), a node without a zone, and web pods placed as `placed` says. */
function cluster(placed: string[]) {
  const nodes = [
    makeNode('a1', { labels: { zone: 'a' } }),
    makeNode('a2', { labels: { zone: 'a' } }),
    makeNode('b1', { labels: { zone: 'b' } }),
    makeNode('nozone'),
  ];
  return makeSnapshot(
    nodes,
    placed.map((n, i) => [makePod(`web-${i}`, { labels: web }), n]),
  );
}

const filterCases: {
  name: string;
  placed: string[];
  constraint: TopologySpreadConstraint;
  labels?: Record<string, string>;
  spec?: object;
  want: Record<string, string>;
}[] = [
  {
    name: 'the emptier zone fits, the fuller one would exceed maxSkew',
    placed: ['a1', 'a2'],
    constraint: spread('DoNotSchedule'),
    want: { a1: SKEW, a2: SKEW, b1: '', nozone: MISSING },
  },
  {
    name: 'a larger maxSkew allows the fuller zone',
    placed: ['a1', 'a2'],
    constraint: spread('DoNotSchedule', { maxSkew: 3 }),
    want: { a1: '', a2: '', b1: '', nozone: MISSING },
  },
  {
    name: 'balanced zones: both fit',
    placed: ['a1', 'b1'],
    constraint: spread('DoNotSchedule'),
    want: { a1: '', a2: '', b1: '', nozone: MISSING },
  },
  {
    name: 'minDomains above the domain count makes the global minimum 0',
    placed: ['a1', 'b1'],
    constraint: spread('DoNotSchedule', { minDomains: 3 }),
    want: { a1: SKEW, a2: SKEW, b1: SKEW, nozone: MISSING },
  },
  {
    name: 'a pod its own selector does not match is not counted itself',
    placed: ['a1', 'a2'],
    constraint: spread('DoNotSchedule', { maxSkew: 2 }),
    labels: { app: 'batch' },
    want: { a1: '', a2: '', b1: '', nozone: MISSING },
  },
  {
    name: 'only domains of nodes passing node affinity count (nodeAffinityPolicy Honor)',
    placed: ['a1', 'a2'],
    constraint: spread('DoNotSchedule'),
    spec: { nodeSelector: { zone: 'a' } },
    want: { a1: '', a2: '', b1: '', nozone: MISSING },
  },
  {
    name: 'ScheduleAnyway constraints do not filter (PreFilter skips)',
    placed: ['a1', 'a2'],
    constraint: spread('ScheduleAnyway'),
    want: { a1: '', a2: '', b1: '', nozone: '' },
  },
];

for (const c of filterCases) {
  test(`PodTopologySpread Filter: ${c.name}`, () => {
    const snap = cluster(c.placed);
    const pod = makePod('p', {
      labels: c.labels ?? web,
      spec: { topologySpreadConstraints: [c.constraint], ...c.spec },
    });
    assert.deepEqual(runFilter(podTopologySpread({}, fakeHandle(snap)), pod, snap), c.want);
  });
}

test('PodTopologySpread Score: the zone with fewer matching pods scores highest, a node outside every zone 0', () => {
  const snap = cluster(['a1', 'a2']);
  const pod = makePod('p', { labels: web, spec: { topologySpreadConstraints: [spread('ScheduleAnyway')] } });
  assert.deepEqual(runScore(podTopologySpread({}, fakeHandle(snap)), pod, snap), { a1: 0, a2: 0, b1: 100, nozone: 0 });
});

test('PodTopologySpread Score: with no matching pods anywhere every zoned node scores 100', () => {
  const snap = cluster([]);
  const pod = makePod('p', { labels: web, spec: { topologySpreadConstraints: [spread('ScheduleAnyway')] } });
  assert.deepEqual(runScore(podTopologySpread({}, fakeHandle(snap)), pod, snap), {
    a1: 100,
    a2: 100,
    b1: 100,
    nozone: 0,
  });
});

test('PodTopologySpread PreScore: skipped for a pod with only DoNotSchedule constraints', () => {
  const snap = cluster([]);
  assert.equal(
    runScore(
      podTopologySpread({}, fakeHandle(snap)),
      makePod('p', { labels: web, spec: { topologySpreadConstraints: [spread('DoNotSchedule')] } }),
      snap,
    ),
    undefined,
  );
});
