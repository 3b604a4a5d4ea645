import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiserverAddress, etcdClusterSpecs, haproxyConfig, isHa, pointKubeconfigsAt } from './ha.js';
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
  assert.equal(isHa({ etcdMembers: 1, apiservers: 1, schedulers: 1 }), false);
  assert.equal(isHa({ etcdMembers: 3, apiservers: 1, schedulers: 1 }), true);
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
