import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerCertificate } from 'node:tls';
import { userFromCertificate } from './x509.js';

const cert = (subject: Record<string, string | string[]>): PeerCertificate =>
  ({ subject }) as unknown as PeerCertificate;

test("a client certificate's CN is the user and each O a group, plus system:authenticated", () => {
  assert.deepEqual(userFromCertificate(cert({ CN: 'system:node:n1', O: 'system:nodes' })), {
    username: 'system:node:n1',
    groups: ['system:nodes', 'system:authenticated'],
  });
  assert.deepEqual(userFromCertificate(cert({ CN: 'alice', O: ['dev', 'ops'] })), {
    username: 'alice',
    groups: ['dev', 'ops', 'system:authenticated'],
  });
  assert.deepEqual(userFromCertificate(cert({ CN: 'bob' })), { username: 'bob', groups: ['system:authenticated'] });
  assert.equal(userFromCertificate(cert({ O: 'x' })), undefined, 'no CN: not a user');
});
