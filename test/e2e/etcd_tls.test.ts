/**
 * One PKI for several API servers over an etcd that speaks only TLS (issue 26):
 * `kscale certs` fills a directory that is copied to each server, as kubeadm's
 * shared /etc/kubernetes/pki; a real Debian etcd started with its member
 * certificate requires client certificates; two `kscale server`s reach it with
 * --etcd-cafile/--etcd-certfile/--etcd-keyfile. A kubeconfig and a
 * ServiceAccount token from one server are good at the other, and a server
 * without etcd's client certificate serves nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationV1Api, CoreV1Api, KubeConfig, type ApiType, type Configuration } from '@kubernetes/client-node';
import { startEtcd, type EtcdProcess } from '../../src/storage/testing/etcd_process.js';
import { KSCALE, secureGet, startServer, tokenKubeconfig, type TestServer } from './harness.js';

const root = mkdtempSync(join(tmpdir(), 'kscale-etcd-tls-'));
const pki = join(root, 'pki');
let etcd: EtcdProcess;
const servers: TestServer[] = [];

/** The flags of a server over the TLS etcd, with its own copy of the PKI on its own loopback address. */
function serverArgs(certDir: string, ip: string, withClientCert = true): string[] {
  return [
    '--etcd-servers',
    etcd.clientUrl,
    '--bind-address',
    ip,
    '--cert-dir',
    certDir,
    '--service-account-signing-key-file',
    join(certDir, 'service-account.key'),
    '--etcd-cafile',
    join(certDir, 'etcd', 'ca.crt'),
    ...(withClientCert
      ? [
          '--etcd-certfile',
          join(certDir, 'apiserver-etcd-client.crt'),
          '--etcd-keyfile',
          join(certDir, 'apiserver-etcd-client.key'),
        ]
      : []),
  ];
}

/** A copy of the shared PKI, as each control-plane machine gets one. */
function copyOfPki(name: string): string {
  const dir = join(root, name);
  cpSync(pki, dir, { recursive: true });
  return dir;
}

/** `kubeconfig` pointed at another server's URL. */
function pointedAt(kubeconfig: string, server: TestServer, name: string): string {
  const file = join(root, `${name}.kubeconfig`);
  writeFileSync(
    file,
    readFileSync(kubeconfig, 'utf8').replace(/server: https:\/\/[^\n]+/, `server: ${server.secureURL}`),
    {
      mode: 0o600,
    },
  );
  return file;
}

/** A kubeconfig file loaded, to make API clients from. */
class KubeConfigWith {
  private readonly kc = new KubeConfig();
  constructor(file: string) {
    this.kc.loadFromFile(file);
  }
  api<T extends ApiType>(c: new (config: Configuration) => T): T {
    return this.kc.makeApiClient(c);
  }
}

const api = (kubeconfig: string): CoreV1Api => new KubeConfigWith(kubeconfig).api(CoreV1Api);

before(async () => {
  const r = spawnSync(
    process.execPath,
    [KSCALE, 'certs', '--cert-dir', pki, '--tls-san', 'kscale-lb.example', '--etcd-member', 'etcd0=127.0.0.1'],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /--etcd-certfile .*apiserver-etcd-client\.crt/);
  etcd = await startEtcd({
    tls: {
      certFile: join(pki, 'etcd', 'etcd0.crt'),
      keyFile: join(pki, 'etcd', 'etcd0.key'),
      caFile: join(pki, 'etcd', 'ca.crt'),
      clientCertFile: join(pki, 'apiserver-etcd-client.crt'),
      clientKeyFile: join(pki, 'apiserver-etcd-client.key'),
    },
  });
  assert.match(etcd.clientUrl, /^https:/);
});

after(async () => {
  for (const s of servers) await s.stop();
  await etcd?.stop();
  rmSync(root, { recursive: true, force: true });
});

test('etcd without a client certificate refuses a plain client', async () => {
  const res = await fetch(`${etcd.clientUrl.replace('https:', 'http:')}/health`).catch((e: Error) => e);
  assert.ok(res instanceof Error, 'etcd answered plain HTTP');
});

test('two servers with copies of one `kscale certs` PKI share an etcd over TLS, their CAs and their ServiceAccount key', async () => {
  const a = await startServer(serverArgs(copyOfPki('a-certs'), '127.0.0.2'), mkdtempSync(join(root, 'a-')));
  servers.push(a);
  const b = await startServer(serverArgs(copyOfPki('b-certs'), '127.0.0.3'), mkdtempSync(join(root, 'b-')));
  servers.push(b);
  // Each server issued its own serving certificate from the shared CA, with the load balancer's name in it.
  for (const [s, dir] of [
    [a, 'a-certs'],
    [b, 'b-certs'],
  ] as const) {
    const serving = readFileSync(join(root, dir, 'serving-kube-apiserver.crt'), 'utf8');
    assert.notEqual(serving, readFileSync(join(pki, 'serving-kube-apiserver.crt'), 'utf8'), `${dir}: reissued`);
    assert.equal((await secureGet(s, '/readyz')).code, 200);
  }

  // What A writes to etcd, B reads, with A's admin credential sent to B (one client CA, one server CA).
  await api(a.kubeconfig).createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'over-tls' }, data: { via: 'a' } },
  });
  const adminAtB = pointedAt(a.kubeconfig, b, 'admin-at-b');
  const cm = await api(adminAtB).readNamespacedConfigMap({ name: 'over-tls', namespace: 'default' });
  assert.equal(cm.data?.via, 'a');

  // A ServiceAccount token A signs is verified by B.
  await api(a.kubeconfig).createNamespacedServiceAccount({
    namespace: 'default',
    body: { metadata: { name: 'robot' } },
  });
  const tr = await api(a.kubeconfig).createNamespacedServiceAccountToken({
    name: 'robot',
    namespace: 'default',
    body: { spec: { audiences: [] } },
  });
  const token = tr.status?.token;
  assert.ok(token);
  const review = await new KubeConfigWith(tokenKubeconfig(b, token, 'robot-at-b'))
    .api(AuthenticationV1Api)
    .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  assert.equal(review.status?.userInfo?.username, 'system:serviceaccount:default:robot');
});

test("a server without etcd's client certificate does not become ready, and says why", async () => {
  const dir = mkdtempSync(join(root, 'c-'));
  const p = spawn(
    process.execPath,
    [
      KSCALE,
      'server',
      '--secure-port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      ...serverArgs(copyOfPki('c-certs'), '127.0.0.4', false),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => p.once('exit', (code) => resolve(code)));
  try {
    const deadline = performance.now() + 30_000;
    // The handshake etcd refuses is reported while the server waits; it never starts serving.
    while (!/waiting for storage: .*etcd/i.test(out) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(out, /waiting for storage: .*etcd/i, out);
    assert.doesNotMatch(out, /listening on/, out);
    assert.equal(p.exitCode, null, 'the server exited instead of waiting for etcd');
  } finally {
    p.kill('SIGKILL');
    await exit;
  }
});
