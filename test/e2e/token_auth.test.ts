/**
 * Bearer tokens on the secure port with the real kubectl: --token-auth-file's
 * static tokens, and (with --enable-bootstrap-token-auth) bootstrap tokens
 * from kube-system Secrets, as kubeadm's `kubeadm join` presents them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { kubectlPath, startServer, tokenKubeconfig, type TestServer } from './harness.js';
import { Kubectl, until } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';

/** Kubectls authenticating with bearer tokens against one server, closed together. */
class TokenKubectls {
  private readonly all: Kubectl[] = [];
  constructor(private readonly server: () => TestServer) {}

  /** A kubectl whose kubeconfig holds the server's CA and `token` only. */
  as(token: string, name: string): Kubectl {
    const k = new Kubectl(kubectlPath(), tokenKubeconfig(this.server(), token, name));
    this.all.push(k);
    return k;
  }

  /** Closes every kubectl made. */
  async close(): Promise<void> {
    for (const k of this.all) await k.close();
  }
}

/** A bootstrap token Secret as `kubeadm token create` writes it. */
function bootstrapTokenSecret(id: string, secret: string, extra: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': id,
      'token-secret': secret,
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      ...extra,
    },
  });
}

describe('--token-auth-file', () => {
  let server: TestServer;
  let admin: Kubectl;
  const users = new TokenKubectls(() => server);
  const as = (token: string, name: string): Kubectl => users.as(token, name);

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'static-admin-token,ops-admin,1,"ops,system:masters"\nstatic-viewer-token,viewer,2\n');
    server = await startServer(['--secure-port', '0', '--token-auth-file', file], dir);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
  });

  after(async () => {
    await users.close();
    await admin?.close();
    await server?.stop();
  });

  test('writes on keep-alive connections stay authenticated by their token after a 409 (no certificate, no opinion)', async () => {
    const client = new RESTClient(
      { ...loadKubeconfig({ path: tokenKubeconfig(server, 'static-admin-token', 'keep-alive') }), qps: 0, burst: 1 },
      { maxRetries: 0 },
    );
    const cms = client.resource(RESOURCES.configmaps);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep-alive', namespace: 'default' } };
    await cms.create(cm);
    await assert.rejects(cms.create(cm), (e: { code?: number }) => e.code === 409);
    const errors: string[] = [];
    let writes = 0;
    const step = async (call: () => Promise<unknown>, done: () => void): Promise<void> => {
      for (let i = 0; i < 20; i++) await call().then(done, (e: Error) => void errors.push(e.message));
    };
    await Promise.all([
      step(
        () => client.requestRaw({ method: 'GET', path: '/api/v1/pods' }),
        () => undefined,
      ),
      step(
        () => cms.patch('keep-alive', 'merge', { data: { n: String(writes) } }, { namespace: 'default' }),
        () => void writes++,
      ),
    ]);
    assert.deepEqual(errors, []);
    assert.equal(writes, 20);
  });

  test("a file token is its record's user, uid and groups", async () => {
    const who = JSON.parse(await as('static-admin-token', 'ops').ok(['auth', 'whoami', '-o', 'json']));
    assert.deepEqual(who.status.userInfo, {
      username: 'ops-admin',
      uid: '1',
      groups: ['ops', 'system:masters', 'system:authenticated'],
    });
    await as('static-admin-token', 'ops2').ok(['get', 'nodes']);
    assert.match(
      await as('static-viewer-token', 'viewer').fails(['get', 'nodes']),
      /User "viewer" cannot list resource "nodes"/,
    );
  });

  test('a token in no authenticator is 401, never anonymous', async () => {
    assert.match(await as('not-in-the-file', 'nobody').fails(['get', 'pods']), /Unauthorized|provide credentials/);
  });

  test('an unreadable token file stops the server with a message', async () => {
    await assert.rejects(
      startServer(['--secure-port', '0', '--token-auth-file', '/nonexistent/tokens.csv']),
      /--token-auth-file: .*ENOENT/,
    );
  });
});

describe('--enable-bootstrap-token-auth and the tokencleaner', () => {
  let server: TestServer;
  let admin: Kubectl;
  let cm: Awaited<ReturnType<typeof startControllerManagerProcess>> | undefined;
  const users = new TokenKubectls(() => server);
  const as = (token: string, name: string): Kubectl => users.as(token, name);

  before(async () => {
    server = await startServer(['--secure-port', '0', '--enable-bootstrap-token-auth']);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const past = new Date(Date.now() - 60_000).toISOString();
    const extra = { 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token', expiration: later };
    await admin.ok(['create', '-f', '-'], { input: bootstrapTokenSecret('abcdef', '0123456789abcdef', extra) });
    await admin.ok(['create', '-f', '-'], {
      input: bootstrapTokenSecret('oldtok', '0123456789abcdef', { expiration: past }),
    });
  });

  after(async () => {
    await cm?.stop();
    await users.close();
    await admin?.close();
    await server?.stop();
  });

  test('a bootstrap token is system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
    const k = as('abcdef.0123456789abcdef', 'joiner');
    let who: { status: { userInfo: { username: string; groups: string[] } } } | undefined;
    // The authenticator learns of the Secret from its informer's watch.
    await until('the token authenticates', async () => {
      const r = await k.run(['auth', 'whoami', '-o', 'json']);
      if (r.code === 0) who = JSON.parse(r.stdout);
      return r.code === 0;
    });
    assert.deepEqual(who!.status.userInfo, {
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
    });
  });

  test('an expired bootstrap token, or one with the wrong secret, is 401', async () => {
    assert.match(await as('oldtok.0123456789abcdef', 'expired').fails(['auth', 'whoami']), /Unauthorized/);
    assert.match(await as('abcdef.0000000000000000', 'wrong').fails(['auth', 'whoami']), /Unauthorized/);
  });

  test('the tokencleaner deletes the expired token Secret and keeps the live one', async () => {
    cm = await startControllerManagerProcess(server.kubeconfig, ['--controllers', 'tokencleaner']);
    await until(
      'the expired token is deleted',
      async () => (await admin.run(['get', 'secret', '-n', 'kube-system', 'bootstrap-token-oldtok'])).code !== 0,
    );
    await admin.ok(['get', 'secret', '-n', 'kube-system', 'bootstrap-token-abcdef']);
  });
});
