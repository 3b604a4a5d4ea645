import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listScenarios, loadScenario, parseScenario, planScenario, type PlannedWorkload } from './scenario.js';

test('the shipped scenarios parse', () => {
  assert.deepEqual(listScenarios(), ['load', 'load-mix', 'node-failure', 'nodes', 'pods', 'throttling']);
  for (const s of listScenarios()) assert.equal(loadScenario(s).name, s);
});

test('the load scenario plans 30 pods per node in namespaces of at most 3,000 pods', () => {
  const s = loadScenario('load');
  const plan = planScenario(s, 2500, 30);
  assert.equal(plan.pods, 75_000);
  assert.equal(plan.namespaces.length, 25);
  const perNs = new Map<string, number>();
  for (const w of plan.workloads) perNs.set(w.namespace, (perNs.get(w.namespace) ?? 0) + w.replicas);
  assert.ok(
    [...perNs.values()].every((n) => n <= 3000 + 250),
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
  ];
  for (const [w, re] of bad) assert.throws(() => parseScenario(mix(w), 'f'), re, w);
});

test('DaemonSets and CronJobs are planned by count, outside the shares: one pod per node and none', () => {
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
  assert.equal(plan.pods, 20 + 10);
});

test("the load-mix scenario plans every kind of ClusterLoader2's mix with its ConfigMaps, Secrets, Services and claims", () => {
  const plan = planScenario(loadScenario('load-mix'), 2500, 30);
  const kinds = new Set(plan.workloads.map((w) => w.kind));
  assert.deepEqual([...kinds].sort(), ['CronJob', 'DaemonSet', 'Deployment', 'Job', 'StatefulSet']);
  assert.equal(plan.pods, 75_000 + 2500, 'the DaemonSet adds one pod per node');
  const sts = plan.workloads.filter((w) => w.kind === 'StatefulSet');
  assert.ok(sts.length > 0 && sts.every((w) => w.claims === true));
  const deps = plan.workloads.filter((w) => w.kind === 'Deployment');
  assert.ok(deps.some((w) => w.configMap === true && w.secret === true) && deps.some((w) => w.service));
  assert.equal(plan.workloads.filter((w) => w.kind === 'CronJob').length, 2);
});
