import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listScenarios, loadScenario, parseScenario, planScenario, type PlannedWorkload } from './scenario.js';

test('the shipped scenarios parse', () => {
  assert.deepEqual(listScenarios(), ['load', 'node-failure', 'nodes', 'pods', 'throttling']);
  for (const s of listScenarios()) assert.equal(loadScenario(s).name, s);
});

test('the load scenario plans 30 pods per node in namespaces of at most 3,000 pods', () => {
  const s = loadScenario('load');
  const plan = planScenario(s, 2500, 30);
  assert.equal(plan.pods, 75_000);
  assert.equal(plan.namespaces.length, 25);
  const perNs = new Map<string, number>();
  // The DaemonSet's pods are one per node, wherever its object lives.
  for (const w of plan.workloads)
    if (w.kind !== 'DaemonSet') perNs.set(w.namespace, (perNs.get(w.namespace) ?? 0) + w.replicas);
  assert.ok(
    [...perNs.values()].every((n) => n <= 3000),
    JSON.stringify([...perNs.values()]),
  );
  assert.ok(plan.workloads.some((w) => w.service) && plan.workloads.some((w) => w.kind === 'Job'));
});

test('bad scenarios are rejected with the field at fault', () => {
  assert.throws(() => parseScenario('name: x\nworkloads: []\nphases: []\n', 'f'), /phases must be a non-empty list/);
  assert.throws(
    () => parseScenario('name: x\nworkloads:\n  - {kind: Pod, name: p, share: 0.5}\nphases: [{type: create}]\n', 'f'),
    /shares add up to 0.5/,
  );
  assert.throws(
    () => parseScenario('name: x\nworkloads: []\nphases: [{type: explode}]\n', 'f'),
    /phases\[0\].type must be/,
  );
  assert.throws(
    () =>
      parseScenario('name: x\nworkloads:\n  - {kind: ReplicaSet, name: p, share: 1}\nphases: [{type: create}]\n', 'f'),
    /workloads\[0\]\.kind must be one of Deployment, StatefulSet, Job, Pod, DaemonSet, CronJob/,
  );
});

test('the JSON Schema names missing and mistyped fields, and bad durations', () => {
  assert.throws(
    () => parseScenario('name: x\nworkloads: []\nphases: [{type: scale, fraction: 0.5}]\n', 'f'),
    /scenario f: phases\[0\]\.factor is required/,
  );
  assert.throws(
    () => parseScenario('name: x\nworkloads:\n  - {kind: Job, name: j, share: 1}\nphases: [{type: create}]\n', 'f'),
    /workloads\[0\]\.replicas is required/,
  );
  assert.throws(
    () => parseScenario('name: x\nworkloads: []\nphases: [{type: hold, duration: soon}]\n', 'f'),
    /phases\[0\]\.duration: .*soon/,
  );
  assert.throws(() => parseScenario('name: X Y\nworkloads: []\nphases: [{type: create}]\n', 'f'), /name must match/);
});

const mix = (w: string): string =>
  `name: x\nworkloads:\n  - {kind: Deployment, name: d, replicas: 5, share: 1}\n  - ${w}\nphases: [{type: create}]\n`;

test('the new kinds are rejected with the field at fault when a field does not fit', () => {
  const bad: [string, RegExp][] = [
    ['{kind: StatefulSet, name: e, share: 0}', /workloads\[1\]\.replicas is required/],
    [
      '{kind: Deployment, name: e, replicas: 5, share: 0, claims: true}',
      /workloads\[1\]\.claims is for StatefulSets only/,
    ],
    ['{kind: DaemonSet, name: e, share: 0.1}', /workloads\[1\]\.share: a DaemonSet is given by count/],
    ['{kind: DaemonSet, name: e, replicas: 3}', /workloads\[1\]\.replicas: a DaemonSet has no replicas/],
    ['{kind: DaemonSet, name: e, count: 0}', /workloads\[1\]\.count must be >= 1/],
    ['{kind: DaemonSet, name: e, count: 1.5}', /workloads\[1\]\.count must be integer/],
    ['{kind: DaemonSet, name: e, schedule: "* * * * *"}', /workloads\[1\]\.schedule is for CronJobs only/],
    ['{kind: CronJob, name: e, schedule: "@hourly x"}', /workloads\[1\]\.schedule must match pattern/],
    ['{kind: CronJob, name: e, configMap: true}', /workloads\[1\]: a CronJob's Jobs run no pods/],
    [
      '{kind: StatefulSet, name: e, replicas: 2, share: 0, count: 2}',
      /workloads\[1\]\.count is for DaemonSets and CronJobs/,
    ],
    [
      '{kind: StatefulSet, name: e, replicas: 2, share: 0, schedule: "* * * * *"}',
      /workloads\[1\]\.schedule is for CronJobs only/,
    ],
    ['{kind: StatefulSet, name: e, replicas: 2, share: 0, secret: "yes"}', /workloads\[1\]\.secret must be boolean/],
    ['{kind: StatefulSet, name: e, replicas: 2}', /workloads\[1\]: a StatefulSet takes either a share or perNamespace/],
    [
      '{kind: Job, name: e, replicas: 2, share: 0, perNamespace: 1}',
      /workloads\[1\]: a Job takes either a share or perNamespace/,
    ],
    ['{kind: Job, name: e, replicas: 2, perNamespace: 0}', /workloads\[1\]\.perNamespace must be >= 1/],
    ['{kind: DaemonSet, name: e, perNamespace: 1}', /workloads\[1\]\.perNamespace: a DaemonSet is given by count/],
    ['{kind: CronJob, name: e, count: 1, perNamespace: 1}', /workloads\[1\]: a CronJob takes either a count/],
  ];
  for (const [w, re] of bad) assert.throws(() => parseScenario(mix(w), 'f'), re, w);
});

test('DaemonSets and CronJobs are planned by count: one pod per node out of the total, and none', () => {
  const s = parseScenario(
    mix(
      '{kind: DaemonSet, name: ds, count: 2}\n  - {kind: CronJob, name: cj}\n  - {kind: StatefulSet, name: st, replicas: 2, share: 0, claims: true, configMap: true}',
    ),
    'f',
  );
  const plan = planScenario(s, 5, 4);
  const of = (kind: string): PlannedWorkload[] => plan.workloads.filter((w) => w.kind === kind);
  assert.deepEqual(
    of('DaemonSet').map((w) => [w.name, w.replicas]),
    [
      ['ds-0', 5],
      ['ds-1', 5],
    ],
  );
  assert.deepEqual(
    of('CronJob').map((w) => [w.name, w.replicas, w.schedule]),
    [['cj-0', 0, '*/1 * * * *']],
  );
  assert.equal(of('StatefulSet').length, 0, 'a zero share plans no StatefulSet');
  assert.equal(plan.pods, 20, 'the DaemonSets take their pods out of nodes × pods-per-node');
  assert.equal(
    of('Deployment').reduce((a, w) => a + w.replicas, 0),
    20 - 10,
  );
});

test("the load scenario carries ClusterLoader2's object mix, sized from the node count as CL2 sizes it", () => {
  const s = loadScenario('load');
  const sum = (ws: PlannedWorkload[]): number => ws.reduce((a, w) => a + w.replicas, 0);
  for (const nodes of [100, 1000, 2500, 5000]) {
    const plan = planScenario(s, nodes, 30);
    const of = (kind: string, name?: string): PlannedWorkload[] =>
      plan.workloads.filter((w) => w.kind === kind && (name === undefined || w.name.startsWith(`${name}-`)));
    const ns = plan.namespaces.length;
    // Every pod of the mix counts toward nodes × pods-per-node: --pods-per-node keeps its meaning.
    assert.equal(plan.pods, nodes * 30, `${nodes} nodes`);
    // CL2: a namespace per 100 nodes (3,000 pods), one DaemonSet with a pod on every node, in the first namespace.
    assert.equal(ns, nodes / 100);
    assert.deepEqual(
      of('DaemonSet').map((w) => [w.namespace, w.replicas]),
      [[plan.namespaces[0], nodes]],
    );
    // CL2: one small (5) and one medium (30) StatefulSet per namespace, each pod with its claim; a Job of each size
    // per namespace; here also a CronJob per namespace.
    for (const [name, size] of [
      ['small-sts', 5],
      ['medium-sts', 30],
    ] as const) {
      assert.equal(of('StatefulSet', name).length, ns, name);
      assert.ok(
        of('StatefulSet', name).every((w) => w.replicas === size && w.claims === true && w.service),
        name,
      );
    }
    for (const [name, size] of [
      ['small-job', 5],
      ['medium-job', 30],
      ['big-job', 250],
    ] as const)
      assert.deepEqual(
        of('Job', name).map((w) => w.replicas),
        Array<number>(ns).fill(size),
        name,
      );
    assert.equal(of('CronJob').length, ns);
    assert.ok(of('CronJob').every((w) => w.replicas === 0));
    // The rest in Deployments of 250, 30 and 5 pods, 1/4, 1/4 and 1/2 of it, each with its ConfigMap and Secret.
    const rest = nodes * 30 - nodes - ns * (5 + 30 + 5 + 30 + 250);
    const big = sum(of('Deployment', 'big'));
    const medium = sum(of('Deployment', 'medium'));
    const small = sum(of('Deployment', 'small'));
    assert.equal(big + medium + small, rest);
    assert.ok(Math.abs(big - rest / 4) <= ns && Math.abs(medium - rest / 4) <= ns, `${big} ${medium} of ${rest}`);
    assert.ok(of('Deployment', 'small').every((w) => w.replicas <= 5));
    assert.ok(of('Deployment').every((w) => w.configMap === true && w.secret === true));
    // Namespaces hold their even part of the pods.
    const perNs = new Map<string, number>();
    for (const w of plan.workloads)
      if (w.kind !== 'DaemonSet') perNs.set(w.namespace, (perNs.get(w.namespace) ?? 0) + w.replicas);
    assert.ok([...perNs.values()].every((n) => n === (nodes * 30 - nodes) / ns));
  }
});

test('a small cluster gets every kind of the mix, the per-namespace objects scaled down, and the exact pod count', () => {
  const plan = planScenario(loadScenario('load'), 8, 10);
  assert.equal(plan.pods, 80);
  assert.deepEqual([...new Set(plan.workloads.map((w) => w.kind))].sort(), [
    'CronJob',
    'DaemonSet',
    'Deployment',
    'Job',
    'StatefulSet',
  ]);
  assert.equal(plan.workloads.find((w) => w.kind === 'DaemonSet')!.replicas, 8);
  assert.ok(plan.workloads.filter((w) => w.kind === 'StatefulSet').every((w) => w.replicas >= 1));
  assert.throws(() => planScenario(loadScenario('load'), 8, 0), /DaemonSets need 1 pods per node/);
});
