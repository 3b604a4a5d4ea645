import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controllerManagerSpec, fleetSpecs, serverSpec } from './components.js';
import { defaultConfig } from './config.js';
import { nodeJoinOf } from './node_join.js';
import { loadScenario } from './scenario.js';
import { flagValue, paths, RUN } from './test_helpers.js';

const after = flagValue;

test('--node-join csr: a secure server with bootstrap tokens, a signing controller-manager, fleets with a bootstrap kubeconfig', () => {
  const c = defaultConfig(loadScenario('nodes'), RUN);
  c.fleet.nodeJoin = 'csr';
  const server = serverSpec(c, paths, () => undefined).args;
  assert.equal(after(server, '--secure-port'), '0');
  assert.ok(server.includes('--enable-bootstrap-token-auth'));
  const cm = controllerManagerSpec(c, paths).args;
  assert.equal(after(cm, '--cluster-signing-cert-file'), `${RUN}/data/tls/client-ca.crt`);
  assert.equal(after(cm, '--cluster-signing-key-file'), `${RUN}/data/tls/client-ca.key`);
  for (const f of fleetSpecs(c, paths))
    assert.equal(after(f.args, '--bootstrap-kubeconfig'), `${RUN}/bootstrap.kubeconfig`);
});

test('--node-join csr is the default; --insecure and --pod-watch shared fall back to shared', () => {
  const c = defaultConfig(loadScenario('nodes'), RUN);
  assert.equal(c.fleet.nodeJoin, 'csr');
  assert.equal(nodeJoinOf(c), 'csr');
  assert.equal(nodeJoinOf({ ...c, server: { ...c.server, insecure: true } }), 'shared');
  assert.equal(nodeJoinOf({ ...c, fleet: { ...c.fleet, podWatch: 'shared' } }), 'shared');
});

test('--node-join shared (the opt-out) leaves every command line as it was', () => {
  const c = defaultConfig(loadScenario('nodes'), RUN);
  c.fleet.nodeJoin = 'shared';
  assert.ok(!serverSpec(c, paths, () => undefined).args.includes('--enable-bootstrap-token-auth'));
  assert.ok(!controllerManagerSpec(c, paths).args.includes('--cluster-signing-cert-file'));
  for (const f of fleetSpecs(c, paths)) assert.ok(!f.args.includes('--bootstrap-kubeconfig'));
});
