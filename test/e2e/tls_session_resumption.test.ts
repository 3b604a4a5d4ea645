/**
 * A client that resumes a TLS session (Node's https.Agent caches sessions;
 * the hollow fleet's bootstrap client does) without a client certificate
 * authenticates by its bearer token on the resumed connection too, instead of
 * getting 401 from an empty peer certificate that Node reports as authorized.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { loadKubeconfig } from '../../src/client/index.js';
import { startServer, type TestServer } from './harness.js';

describe('TLS session resumption', () => {
  let server: TestServer;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-1,resumer,uid-1,builders\n');
    server = await startServer(['--secure-port', '0', '--token-auth-file', join(dir, 'tokens.csv')], dir);
  });

  after(async () => server?.stop());

  test('a resumed session without a client certificate still authenticates by its token', async () => {
    const cfg = loadKubeconfig({ path: server.kubeconfig });
    const agent = new https.Agent({ keepAlive: false, ca: cfg.ca });
    const whoami = (): Promise<{ code: number; reused: boolean; body: string }> =>
      new Promise((resolve, reject) => {
        const req = https.request(
          new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', cfg.host),
          {
            method: 'POST',
            agent,
            headers: { Authorization: 'Bearer tok-1', 'Content-Type': 'application/json' },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () =>
              resolve({ code: res.statusCode ?? 0, reused: (res.socket as TLSSocket).isSessionReused(), body }),
            );
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
      });
    const first = await whoami();
    assert.equal(first.code, 201, first.body);
    assert.equal(first.reused, false);
    const second = await whoami();
    assert.equal(second.reused, true, 'the agent resumed the cached session');
    assert.equal(second.code, 201, second.body);
    assert.equal(JSON.parse(second.body).status.userInfo.username, 'resumer');
    agent.destroy();
  });
});
