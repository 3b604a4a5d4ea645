import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controllerManagerSpec } from './components.js';
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
