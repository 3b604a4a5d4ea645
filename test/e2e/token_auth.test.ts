/**
 * Bearer tokens on the secure port with the real kubectl: --token-auth-file's
 * static tokens, and (with --enable-bootstrap-token-auth) bootstrap tokens
 * from kube-system Secrets, as kubeadm's `kubeadm join` presents them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { kubectlPath, startServer, tokenKubeconfig, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

describe('--token-auth-file', () => {
  let server: TestServer;
  let admin: Kubectl;
  const users: Kubectl[] = [];
  const as = (token: string, name: string): Kubectl => {
    const k = new Kubectl(kubectlPath(), tokenKubeconfig(server, token, name));
    users.push(k);
    return k;
  };

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'static-admin-token,ops-admin,1,"ops,system:masters"\nstatic-viewer-token,viewer,2\n');
    server = await startServer(['--secure-port', '0', '--token-auth-file', file], dir);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
  });

  after(async () => {
    for (const u of users) await u.close();
    await admin?.close();
    await server?.stop();
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
