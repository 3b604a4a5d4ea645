import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiserverAddress,
  etcdClusterSpecs,
  haControllerManagerSpec,
  haproxyConfig,
  isHa,
  leaderElectionNotes,
  pointKubeconfigsAt,
} from './ha.js';
import { defaultConfig } from './config.js';
import { loadScenario } from './scenario.js';
import { runPaths } from './components.js';

test('the HAProxy configuration passes haproxy -c, in mode tcp with an HTTPS /readyz check per server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-'));
  try {
    const cfg = haproxyConfig(16443, ['127.0.0.2:6443', '127.0.0.3:6443']);
    writeFileSync(join(dir, 'h.cfg'), cfg);
    execFileSync('haproxy', ['-c', '-f', join(dir, 'h.cfg')], { stdio: 'pipe' });
    assert.match(cfg, /mode tcp/);
    assert.match(cfg, /option httpchk GET \/readyz/);
    assert.equal(cfg.match(/check check-ssl verify none/g)?.length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an etcd cluster spec names every member in each one --initial-cluster, on distinct ports', async () => {
  const { specs, urls } = await etcdClusterSpecs(3, join(tmpdir(), 'kscale-ha-specs'));
  assert.equal(specs.length, 3);
  assert.equal(new Set(urls.split(',')).size, 3);
  const clusters = specs.map((s) => s.args[s.args.indexOf('--initial-cluster') + 1]);
  assert.equal(new Set(clusters).size, 1);
  assert.equal(clusters[0]!.split(',').length, 3);
});

test('servers take 127.0.0.2 on; one of everything is not HA', () => {
  assert.equal(apiserverAddress(0), '127.0.0.2');
  const one = { etcdMembers: 1, apiservers: 1, schedulers: 1, controllerManagers: 1 };
  assert.equal(isHa(one), false);
  assert.equal(isHa({ ...one, etcdMembers: 3 }), true);
  assert.equal(isHa({ ...one, controllerManagers: 2 }), true);
});

test('controller-managers are leader-elected; the first leads under the plain name, a standby is ready once it campaigns', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-'));
  try {
    const c = defaultConfig(loadScenario('load'), dir);
    const paths = runPaths(dir, dir);
    const first = haControllerManagerSpec(c, paths, 0);
    const standby = haControllerManagerSpec(c, paths, 1);
    assert.equal(first.name, 'controller-manager');
    assert.equal(standby.name, 'controller-manager-1');
    for (const s of [first, standby]) assert.ok(s.args.includes('--leader-elect=true'));
    assert.ok(first.ready?.test('kscale controller-manager started: nodelifecycle'));
    assert.ok(standby.ready?.test('kscale controller-manager: campaigning for kube-controller-manager'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every kubeconfig is pointed at the load balancer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-'));
  try {
    const paths = runPaths(dir, dir);
    writeFileSync(paths.kubeconfig, 'clusters:\n- cluster:\n    server: https://127.0.0.2:6443\n');
    pointKubeconfigsAt(paths, 'https://127.0.0.1:16443');
    assert.match(readFileSync(paths.kubeconfig, 'utf8'), /server: https:\/\/127\.0\.0\.1:16443\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the leader-election notes say which candidates acted, from their logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-'));
  try {
    writeFileSync(join(dir, 'controller-manager.log'), 'campaigning\nkscale controller-manager started: a, b\n');
    writeFileSync(join(dir, 'controller-manager-1.log'), 'kscale controller-manager: campaigning for x\n');
    writeFileSync(join(dir, 'scheduler-0.log'), 'kscale scheduler started (qps 1)\n');
    writeFileSync(join(dir, 'scheduler-1.log'), 'kscale scheduler started (qps 1)\n');
    const notes = leaderElectionNotes(dir, [
      'server-0',
      'controller-manager',
      'controller-manager-1',
      'scheduler-0',
      'scheduler-1',
    ]);
    assert.deepEqual(notes, [
      'leader election (kube-controller-manager Lease): 1 of 2 candidates acted (controller-manager)',
      'leader election (kube-scheduler Lease): 2 of 2 candidates acted (scheduler-0, scheduler-1); more than one: a takeover, or two leaders',
    ]);
    assert.deepEqual(leaderElectionNotes(dir, ['controller-manager', 'scheduler']), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
