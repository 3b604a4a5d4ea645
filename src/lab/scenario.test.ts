import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listScenarios, loadScenario, parseScenario, planScenario } from './scenario.js';

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
      parseScenario('name: x\nworkloads:\n  - {kind: StatefulSet, name: p, share: 1}\nphases: [{type: create}]\n', 'f'),
    /workloads\[0\].kind/,
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
