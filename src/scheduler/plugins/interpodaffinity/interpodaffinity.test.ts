import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Affinity, PodAffinityTerm } from '../../../api/index.js';
import { fakeHandle, makeNode, makePod, makeSnapshot, runFilter, runScore } from '../../testing/wrappers.js';
import { interPodAffinity } from './index.js';

const AFFINITY = "node(s) didn't match pod affinity rules";
const ANTI = "node(s) didn't match pod anti-affinity rules";
const EXISTING_ANTI = "node(s) didn't satisfy existing pods anti-affinity rules";
const term = (labels: Record<string, string>, topologyKey = 'zone'): PodAffinityTerm => ({
  labelSelector: { matchLabels: labels },
  topologyKey,
});
const db = { app: 'db' };
const web = { app: 'web' };

/** Zones a, b and c with one node each, a node without a zone (all with hostnames); a db pod runs on a1, plus `extra` pods. */
function cluster(extra: [string, Record<string, string>, Affinity?][] = []) {
  const node = (name: string, zone?: string) =>
    makeNode(name, { labels: { 'kubernetes.io/hostname': name, ...(zone !== undefined ? { zone } : {}) } });
  const nodes = [node('a1', 'a'), node('b1', 'b'), node('c1', 'c'), node('bare')];
  const pods = [['a1', db] as [string, Record<string, string>, Affinity?], ...extra];
  return makeSnapshot(
    nodes,
    pods.map(([n, labels, affinity], i) => [
      makePod(`existing-${i}`, { labels, ...(affinity !== undefined ? { spec: { affinity } } : {}) }),
      n,
    ]),
  );
}

const filterCases: {
  name: string;
  labels?: Record<string, string>;
  affinity?: Affinity;
  extra?: [string, Record<string, string>, Affinity?][];
  want: Record<string, string>;
}[] = [
  { name: 'a pod without terms fits everywhere (PreFilter skips)', want: { a1: '', b1: '', c1: '', bare: '' } },
  {
    name: 'required affinity: only the zone holding a matching pod',
    affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(db)] } },
    want: { a1: '', b1: AFFINITY, c1: AFFINITY, bare: AFFINITY },
  },
  {
    name: 'required affinity to pods that do not exist yet, by the first pod of its own group, is waived',
    labels: web,
    affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web)] } },
    want: { a1: '', b1: '', c1: '', bare: '' },
  },
  {
    name: 'required affinity to pods that do not exist, by a pod outside that group, fits nowhere',
    affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web)] } },
    want: { a1: AFFINITY, b1: AFFINITY, c1: AFFINITY, bare: AFFINITY },
  },
  {
    name: 'required anti-affinity: every zone but the one holding a matching pod',
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(db)] } },
    want: { a1: ANTI, b1: '', c1: '', bare: '' },
  },
  {
    name: 'anti-affinity by hostname keeps the pod off that one node only',
    affinity: {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(db, 'kubernetes.io/hostname')] },
    },
    want: { a1: ANTI, b1: '', c1: '', bare: '' },
  },
  {
    name: "an existing pod's anti-affinity keeps a matching pod out of its zone (symmetry)",
    labels: web,
    extra: [
      ['b1', { app: 'guard' }, { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web)] } }],
    ],
    want: { a1: '', b1: EXISTING_ANTI, c1: '', bare: '' },
  },
  {
    name: "an existing pod's anti-affinity does not concern pods it does not select",
    labels: { app: 'other' },
    extra: [
      ['b1', { app: 'guard' }, { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web)] } }],
    ],
    want: { a1: '', b1: '', c1: '', bare: '' },
  },
];

for (const c of filterCases) {
  test(`InterPodAffinity Filter: ${c.name}`, () => {
    const snap = cluster(c.extra);
    const pod = makePod('p', {
      labels: c.labels ?? {},
      ...(c.affinity !== undefined ? { spec: { affinity: c.affinity } } : {}),
    });
    assert.deepEqual(runFilter(interPodAffinity({}, fakeHandle(snap)), pod, snap), c.want);
  });
}

const scoreCases: {
  name: string;
  labels?: Record<string, string>;
  affinity?: Affinity;
  extra?: [string, Record<string, string>, Affinity?][];
  want: Record<string, number> | undefined;
}[] = [
  { name: 'a pod without terms, beside pods without terms, is not scored (PreScore skips)', want: undefined },
  {
    name: 'preferred affinity raises the zone holding a matching pod',
    affinity: {
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term(db) }] },
    },
    want: { a1: 100, b1: 0, c1: 0, bare: 0 },
  },
  {
    name: 'preferred anti-affinity lowers it',
    affinity: {
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term(db) }] },
    },
    want: { a1: 0, b1: 100, c1: 100, bare: 100 },
  },
  {
    name: 'weights add up across terms',
    affinity: {
      podAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 4, podAffinityTerm: term(db) },
          { weight: 2, podAffinityTerm: term({ app: 'cache' }) },
        ],
      },
    },
    extra: [['b1', { app: 'cache' }]],
    want: { a1: 100, b1: 50, c1: 0, bare: 0 },
  },
  {
    name: "an existing pod's preferred affinity for the incoming pod raises its zone (symmetry)",
    labels: web,
    extra: [
      [
        'c1',
        { app: 'client' },
        {
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term(web) }],
          },
        },
      ],
    ],
    want: { a1: 0, b1: 0, c1: 100, bare: 0 },
  },
];

for (const c of scoreCases) {
  test(`InterPodAffinity Score: ${c.name}`, () => {
    const snap = cluster(c.extra);
    const pod = makePod('p', {
      labels: c.labels ?? {},
      ...(c.affinity !== undefined ? { spec: { affinity: c.affinity } } : {}),
    });
    assert.deepEqual(runScore(interPodAffinity({}, fakeHandle(snap)), pod, snap), c.want);
  });
}
