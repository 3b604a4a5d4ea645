/**
 * The secure port over loopback: generated certificates, HTTP/2 with an
 * HTTP/1.1 fallback, client-certificate authentication, anonymous requests,
 * and the bad-credential cases, with the real kubectl and client-node 1.4.0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { generateCA, issueCert } from '../../src/apiserver/pki/certs.js';
import { kubectlPath, startServer, tokenKubeconfig, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

interface Tls {
  url: URL;
  ca: string;
  cert: string;
  key: string;
}

function tlsOf(server: TestServer): Tls {
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser()!;
  const dec = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString();
  return { url: new URL(cluster.server), ca: dec(cluster.caData), cert: dec(user.certData), key: dec(user.keyData) };
}

/** One HTTPS request over HTTP/1.1 with the given client credentials; with a body it is a JSON POST. */
function send(
  t: Tls,
  path: string,
  creds: { cert?: string; key?: string; token?: string } = {},
  body?: string,
): Promise<{ code: number; body: string }> {
  const headers: Record<string, string> = {};
  if (creds.token) headers.Authorization = `Bearer ${creds.token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: t.url.hostname,
        port: t.url.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        ca: t.ca,
        cert: creds.cert,
        key: creds.key,
        agent: false,
        headers,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const REVIEW = '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}';

describe('kscale server --secure-port', () => {
  let server: TestServer;
  let t: Tls;
  let k: Kubectl;

  before(async () => {
    server = await startServer(['--secure-port', '0']);
    t = tlsOf(server);
    k = new Kubectl(kubectlPath(), server.kubeconfig);
  });

  after(async () => {
    await k?.close();
    await server?.stop();
  });

  test('the written kubeconfig verifies the server with its CA and authenticates as kubeadm:cluster-admins', async () => {
    const text = readFileSync(server.kubeconfig, 'utf8');
    assert.doesNotMatch(text, /insecure-skip-tls-verify/);
    assert.equal(t.url.protocol, 'https:');
    const who = await k.ok(['auth', 'whoami', '-o', 'json']);
    const review = JSON.parse(who);
    assert.equal(review.status.userInfo.username, 'kubernetes-admin');
    assert.deepEqual(review.status.userInfo.groups, ['kubeadm:cluster-admins', 'system:authenticated']);
    assert.match(await k.ok(['get', 'namespaces', '-o', 'name']), /namespace\/kube-system/);
    const superAdmin = new Kubectl(kubectlPath(), server.superAdminKubeconfig);
    try {
      assert.doesNotMatch(readFileSync(server.superAdminKubeconfig, 'utf8'), /insecure-skip-tls-verify/);
      const su = JSON.parse(await superAdmin.ok(['auth', 'whoami', '-o', 'json']));
      assert.equal(su.status.userInfo.username, 'kubernetes-super-admin');
      assert.deepEqual(su.status.userInfo.groups, ['system:masters', 'system:authenticated']);
    } finally {
      await superAdmin.close();
    }
  });

  test('HTTP/2 is negotiated with ALPN h2, and HTTP/1.1 still works', async () => {
    const session = http2Connect(t.url.origin, { ca: t.ca, cert: t.cert, key: t.key });
    try {
      const alpn = await new Promise<string | false | undefined>((resolve, reject) => {
        session.once('connect', () => resolve(session.alpnProtocol));
        session.once('error', reject);
      });
      assert.equal(alpn, 'h2');
      const status = await new Promise<number>((resolve, reject) => {
        const s = session.request({ ':path': '/api/v1/namespaces/default', ':method': 'GET' });
        s.on('response', (h) => resolve(Number(h[':status'])));
        s.on('error', reject);
        s.resume();
        s.end();
      });
      assert.equal(status, 200);
    } finally {
      session.close();
    }
    assert.equal((await send(t, '/api/v1/namespaces/default', { cert: t.cert, key: t.key })).code, 200);
  });

  test('client-node 1.4.0 lists and watches over TLS with the client certificate', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const list = await core.listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      void new Watch(kc)
        .watch(
          '/api/v1/namespaces/default/configmaps',
          {},
          (type, obj: { metadata: { name: string } }) => {
            seen.push(`${type} ${obj.metadata.name}`);
            if (obj.metadata.name === 'over-tls') resolve();
          },
          () => undefined,
        )
        .then((req) => after(() => req.abort()));
    });
    await new Promise((r) => setTimeout(r, 200));
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'over-tls' }, data: { a: 'b' } },
    });
    await done;
    assert.ok(seen.includes('ADDED over-tls'), seen.join(', '));
  });

  test('no credentials is system:anonymous (public info only); a bad bearer token is 401 with a Status, never anonymous', async () => {
    const res = await send(t, REVIEWS, {}, REVIEW);
    // RBAC (the default mode) names the anonymous user: upstream binds system:basic-user to authenticated users only.
    assert.equal(res.code, 403, res.body);
    assert.equal(
      JSON.parse(res.body).message,
      'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    assert.equal((await send(t, '/version')).code, 200, 'system:public-info-viewer is bound to system:unauthenticated');
    const bad = await send(t, '/api/v1/namespaces', { token: 'not-a-token' });
    assert.equal(bad.code, 401);
    assert.deepEqual(
      { kind: JSON.parse(bad.body).kind, reason: JSON.parse(bad.body).reason },
      { kind: 'Status', reason: 'Unauthorized' },
    );
  });

  test('a ServiceAccount token from kubectl create token authenticates; a wrong audience, or a deleted bound pod or ServiceAccount, is 401', async () => {
    await k.ok(['create', 'serviceaccount', 'builder']);
    const whoami = (token: string): Promise<{ code: number; body: string }> => send(t, REVIEWS, { token }, REVIEW);
    const token = (await k.ok(['create', 'token', 'builder'])).trim();
    const ok = await whoami(token);
    assert.equal(ok.code, 201, ok.body);
    const user = JSON.parse(ok.body).status.userInfo;
    assert.equal(user.username, 'system:serviceaccount:default:builder');
    assert.deepEqual(user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    // kubectl with a kubeconfig holding only the CA and the token.
    const asSA = new Kubectl(kubectlPath(), tokenKubeconfig(server, token, 'token'));
    try {
      assert.match(await asSA.ok(['auth', 'whoami']), /system:serviceaccount:default:builder/);
    } finally {
      await asSA.close();
    }
    assert.equal(
      (await whoami((await k.ok(['create', 'token', 'builder', '--audience', 'vault'])).trim())).code,
      401,
      'not an API audience',
    );
    await k.ok(['run', 'holder', '--image=nginx', '--overrides', '{"spec":{"serviceAccountName":"builder"}}']);
    const bound = (
      await k.ok(['create', 'token', 'builder', '--bound-object-kind', 'Pod', '--bound-object-name', 'holder'])
    ).trim();
    assert.equal((await whoami(bound)).code, 201);
    await k.ok(['delete', 'pod', 'holder', '--grace-period=0', '--force']);
    // Successes are cached for up to 10 s, as upstream's token cache keeps them.
    await new Promise((r) => setTimeout(r, 10_500));
    assert.equal((await whoami(bound)).code, 401, 'the bound pod is gone');
    await k.ok(['delete', 'serviceaccount', 'builder']);
    assert.equal((await whoami(token)).code, 401, 'the ServiceAccount is gone');
  });

  test('a client certificate that expires while its HTTP/2 connection stays open is refused from then on', async () => {
    const dir = join(server.dir, 'data', 'tls');
    const clientCA = {
      certPEM: readFileSync(join(dir, 'client-ca.crt'), 'utf8'),
      keyPEM: readFileSync(join(dir, 'client-ca.key'), 'utf8'),
    };
    // X.509 times have whole seconds; this one ends 3 to 4 s from now.
    const brief = await issueCert(clientCA, {
      commonName: 'brief',
      organizations: ['kubeadm:cluster-admins'],
      usages: ['client'],
      validityDays: 4 / 86_400,
    });
    const session = http2Connect(t.url.origin, { ca: t.ca, cert: brief.certPEM, key: brief.keyPEM });
    session.on('error', () => undefined);
    const get = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const s = session.request({ ':path': '/api/v1/namespaces/default', ':method': 'GET' });
        s.on('response', (h) => resolve(Number(h[':status'])));
        s.on('error', reject);
        s.resume();
        s.end();
      });
    try {
      assert.equal(await get(), 200, 'valid: authenticated from the certificate');
      assert.equal(await get(), 200, 'the same connection, answered from what its certificate said');
      await new Promise((r) => setTimeout(r, 5_000));
      assert.equal(await get(), 401, 'expired: the open connection no longer authenticates');
    } finally {
      session.close();
    }
  });

  test('a client certificate from another CA fails the handshake', async () => {
    const otherCA = await generateCA('mallory-ca');
    const forged = await issueCert(otherCA, {
      commonName: 'system:admin',
      organizations: ['system:masters'],
      usages: ['client'],
      validityDays: 1,
    });
    await assert.rejects(
      send(t, '/api/v1/namespaces', { cert: forged.certPEM, key: forged.keyPEM }),
      /socket hang up|ECONNRESET|EPIPE/,
    );
  });

  test('clients stalled before or in the handshake hold nothing: other requests go on', async () => {
    const stalled: Socket[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        const s = netConnect(Number(t.url.port), t.url.hostname);
        s.on('error', () => undefined);
        stalled.push(s);
        // Half of them send the first bytes of a ClientHello and stop.
        if (i % 2 === 0) s.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
      }
      assert.match(await k.ok(['get', 'namespaces', '-o', 'name']), /namespace\/default/);
    } finally {
      for (const s of stalled) s.destroy();
    }
  });

  test('a restart reuses the generated certificates, so the old kubeconfig still works', async () => {
    // The harness removes a stopped server's directory: carry the certificates over to the next one.
    const tlsDir = join(server.dir, 'data', 'tls');
    const kept = mkdtempSync(join(tmpdir(), 'kscale-tls-'));
    cpSync(tlsDir, join(kept, 'data', 'tls'), { recursive: true });
    const before = readFileSync(join(tlsDir, 'server-ca.crt'), 'utf8');
    await server.stop();
    server = await startServer(['--secure-port', '0'], kept);
    assert.equal(readFileSync(join(kept, 'data', 'tls', 'server-ca.crt'), 'utf8'), before);
    const t2 = tlsOf(server);
    assert.equal(t2.ca, t.ca);
    assert.equal(
      (await send(t2, '/api/v1/namespaces/default', { cert: t.cert, key: t.key })).code,
      200,
      'the old client certificate still authenticates',
    );
  });
});

describe('kscale server --secure-port --anonymous-auth=false', () => {
  test('a request without credentials is 401', async () => {
    const server = await startServer(['--secure-port', '0', '--anonymous-auth', 'false']);
    try {
      const t = tlsOf(server);
      assert.equal((await send(t, '/api/v1/namespaces')).code, 401);
      assert.equal((await send(t, '/api/v1/namespaces', { cert: t.cert, key: t.key })).code, 200);
    } finally {
      await server.stop();
    }
  });
});
