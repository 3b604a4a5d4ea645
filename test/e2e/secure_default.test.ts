/**
 * `kscale server` is secure by default (issue 23): HTTPS only unless the lab's --insecure-port is given, a private
 * data dir, the admin and break-glass kubeconfigs, and one kubeconfig per component whose requests RBAC authorizes
 * by that component's bootstrap role only.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KSCALE, kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

const POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'pause' }] },
});
const BINDING = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name: 'p', namespace: 'default' },
  target: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
});

describe('kscale server with no port flags', () => {
  let server: TestServer;
  let components: string;
  const kubectls: Kubectl[] = [];
  const kubectl = (kubeconfig: string): Kubectl => {
    const k = new Kubectl(kubectlPath(), kubeconfig);
    kubectls.push(k);
    return k;
  };

  before(async () => {
    // The components directory lives in the server's temp dir, so stopping the server removes it.
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    components = join(dir, 'components');
    server = await startServer(['--write-component-kubeconfigs', components], dir);
  });

  after(async () => {
    for (const k of kubectls) await k.close();
    await server?.stop();
  });

  test('the default secure port is 6443 and there is no plain-HTTP port unless --insecure-port is given', () => {
    const help = spawnSync(process.execPath, [KSCALE, 'server', '--help'], { encoding: 'utf8' }).stdout;
    assert.match(help, /--secure-port <n>[\s\S]*\(default: 6443\)/);
    assert.match(help, /--insecure-port <n>[\s\S]*AlwaysAllow/);
    assert.equal(new URL(server.url).protocol, 'https:', 'the harness found no plain-HTTP listener');
    assert.doesNotMatch(server.stderr(), /deprecated/);
  });

  test('the data dir is 0700 and every key under it 0600', () => {
    const data = join(server.dir, 'data');
    assert.equal(statSync(data).mode & 0o777, 0o700);
    assert.equal(statSync(join(data, 'tls')).mode & 0o777, 0o700);
    for (const f of [
      'tls/server-ca.key',
      'tls/client-ca.key',
      'tls/serving-kube-apiserver.key',
      'tls/client-admin.key',
      'tls/client-super-admin.key',
      'tls/client-kube-scheduler.key',
      'service-account.key',
    ])
      assert.equal(statSync(join(data, f)).mode & 0o777, 0o600, f);
    for (const f of [server.kubeconfig, server.superAdminKubeconfig, join(components, 'scheduler.conf')])
      assert.equal(statSync(f).mode & 0o777, 0o600, f);
  });

  test('each component kubeconfig carries the CA and a client certificate for its upstream user', async () => {
    for (const [c, user] of [
      ['controller-manager', 'system:kube-controller-manager'],
      ['scheduler', 'system:kube-scheduler'],
      ['proxy', 'system:kube-proxy'],
    ] as const) {
      const file = join(components, `${c}.conf`);
      const text = readFileSync(file, 'utf8');
      assert.match(text, /certificate-authority-data: /);
      assert.doesNotMatch(text, /insecure-skip-tls-verify/);
      const who = JSON.parse(await kubectl(file).ok(['auth', 'whoami', '-o', 'json']));
      assert.equal(who.status.userInfo.username, user);
      assert.deepEqual(who.status.userInfo.groups, ['system:authenticated']);
    }
  });

  test('the scheduler can bind a pod but cannot delete a namespace', async () => {
    const admin = kubectl(server.kubeconfig);
    await admin.ok(['create', '-f', '-'], { input: POD });
    const scheduler = kubectl(join(components, 'scheduler.conf'));
    await scheduler.ok(['create', '--raw', '/api/v1/namespaces/default/pods/p/binding', '-f', '-'], {
      input: BINDING,
    });
    assert.equal(await admin.ok(['get', 'pod', 'p', '-o', 'jsonpath={.spec.nodeName}']), 'n1');
    assert.match(
      await scheduler.fails(['delete', 'namespace', 'default', '--wait=false']),
      /namespaces "default" is forbidden: User "system:kube-scheduler" cannot delete resource "namespaces" in API group "" in the namespace "default"/,
    );
  });

  test('kube-proxy reads Services but may not create pods; the controller-manager is not cluster-admin', async () => {
    const proxy = kubectl(join(components, 'proxy.conf'));
    assert.match(await proxy.ok(['get', 'services', '-A', '-o', 'name']), /service\/kubernetes/);
    assert.match(
      await proxy.fails(['create', '-f', '-'], { input: POD.replace('"p"', '"q"') }),
      /pods is forbidden: User "system:kube-proxy" cannot create resource "pods"/,
    );
    const kcm = kubectl(join(components, 'controller-manager.conf'));
    assert.equal((await kcm.run(['auth', 'can-i', 'create', 'clusterrolebindings'])).stdout.trim(), 'no');
    assert.equal((await kcm.ok(['auth', 'can-i', 'get', 'secrets', '-n', 'kube-system'])).trim(), 'yes');
  });
});

describe('kscale server --port (deprecated)', () => {
  test('is an alias of --insecure-port that warns once and serves plain HTTP as system:masters', async () => {
    const server = await startServer(['--port', '0']);
    try {
      assert.equal(new URL(server.url).protocol, 'http:');
      assert.equal(server.stderr().match(/--port is deprecated: use --insecure-port/g)?.length, 1);
      const res = await fetch(`${server.url}/api/v1/namespaces/kube-system/secrets`);
      assert.equal(res.status, 200, 'the insecure port is AlwaysAllow');
    } finally {
      await server.stop();
    }
  });
});
