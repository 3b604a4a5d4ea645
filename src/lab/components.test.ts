import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { controllerManagerSpec, fleetSpecs, serverSpec } from './components.js';
import { defaultConfig, RAISED_LIMITS, WORKLOAD_SYNCS } from './config.js';
import { loadScenario } from './scenario.js';
import { flagValue, paths, RUN } from './test_helpers.js';

const after = flagValue;

test("the controller-manager runs with the raised client limits and upstream's workload workers by default", () => {
  const c = defaultConfig(loadScenario('nodes'), RUN);
  assert.equal(c.controllerManager.workloadSyncs, WORKLOAD_SYNCS);
  const args = controllerManagerSpec(c, paths).args;
  assert.equal(after(args, '--kube-api-qps'), String(RAISED_LIMITS.qps));
  assert.equal(after(args, '--concurrent-deployment-syncs'), String(WORKLOAD_SYNCS));
  assert.equal(after(args, '--concurrent-replicaset-syncs'), String(WORKLOAD_SYNCS));
});

test('--controller-manager-workload-syncs 50 reaches both controllers', () => {
  const c = defaultConfig(loadScenario('nodes'), RUN);
  c.controllerManager.workloadSyncs = 50;
  const args = controllerManagerSpec(c, paths).args;
  assert.equal(after(args, '--concurrent-deployment-syncs'), '50');
  assert.equal(after(args, '--concurrent-replicaset-syncs'), '50');
});

test('the fleets run at the default priority unless --fleet-nice; the control plane always does', () => {
  const c = defaultConfig(loadScenario('nodes'), RUN);
  c.nodes = 2500;
  assert.equal(c.fleet.nice, 0);
  for (const f of fleetSpecs(c, paths)) {
    assert.equal(f.command, process.execPath);
    assert.ok(!f.args.includes('-n'));
  }
  c.fleet.nice = 10;
  const fleets = fleetSpecs(c, paths);
  assert.equal(fleets.length, 2);
  for (const f of fleets) {
    assert.equal(f.command, 'nice');
    assert.deepEqual(f.args.slice(0, 3), ['-n', '10', process.execPath]);
    assert.ok(f.args.includes('nodes'));
  }
  assert.equal(serverSpec(c, paths, () => {}).command, process.execPath);
  assert.equal(controllerManagerSpec(c, paths).command, process.execPath);
});

test('a process started as the fleets are runs every thread at that nice value', () => {
  // nice(1) sets it before Node starts, so V8's and libuv's threads inherit it: each thread reports its own.
  const script = `const fs = require('node:fs');
    const nices = fs.readdirSync('/proc/self/task').map((t) => fs.readFileSync('/proc/self/task/' + t + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
    process.stdout.write(JSON.stringify(nices));`;
  const r = spawnSync('nice', ['-n', '10', process.execPath, '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const nices = JSON.parse(r.stdout) as string[];
  assert.ok(nices.length > 1, `threads: ${r.stdout}`);
  assert.deepEqual(new Set(nices), new Set(['10']));
});
