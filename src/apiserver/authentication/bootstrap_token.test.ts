import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../clock/index.js';
import type { Obj } from '../object.js';
import { BootstrapTokenSecrets, bootstrapTokenAuthenticator } from './bootstrap_token.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function tokenSecret(data: Record<string, string>, over: Obj = {}): Obj {
  return {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    ...over,
  };
}

const GOOD = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
const TOKEN = 'abcdef.0123456789abcdef';

function setup(secret: Obj) {
  const clock = new FakeClock();
  const secrets = new BootstrapTokenSecrets();
  secrets.replace([secret]);
  return { clock, secrets, auth: bootstrapTokenAuthenticator(secrets, clock) };
}

test('a bootstrap token is system:bootstrap:<id> in system:bootstrappers plus its extra groups', async () => {
  const s = setup(tokenSecret({ ...GOOD, 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' }));
  assert.deepEqual(await s.auth(TOKEN), {
    username: 'system:bootstrap:abcdef',
    groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
  });
});

test('a wrong secret, an unknown id, a malformed token or a Secret of another type is not accepted', async () => {
  const s = setup(tokenSecret(GOOD));
  assert.equal(await s.auth('abcdef.0123456789abcdee'), undefined);
  assert.equal(await s.auth('zzzzzz.0123456789abcdef'), undefined);
  assert.equal(await s.auth('ABCDEF.0123456789abcdef'), undefined);
  assert.equal(await s.auth('abcdef'), undefined);
  s.secrets.put(tokenSecret(GOOD, { type: 'Opaque' }));
  assert.equal(await s.auth(TOKEN), undefined, 'no longer a bootstrap token');
  s.secrets.put(tokenSecret(GOOD));
  assert.notEqual(await s.auth(TOKEN), undefined);
  s.secrets.delete(tokenSecret(GOOD));
  assert.equal(await s.auth(TOKEN), undefined, 'deleted');
});

test('a token without usage-bootstrap-authentication, with a bad extra group, or being deleted is refused', async () => {
  const { 'usage-bootstrap-authentication': _u, ...noUsage } = GOOD;
  assert.equal(await setup(tokenSecret(noUsage)).auth(TOKEN), undefined);
  assert.equal(await setup(tokenSecret({ ...GOOD, 'auth-extra-groups': 'system:masters' })).auth(TOKEN), undefined);
  const deleting = tokenSecret(GOOD);
  (deleting.metadata as Obj).deletionTimestamp = '2026-01-01T00:00:00Z';
  assert.equal(await setup(deleting).auth(TOKEN), undefined);
});

test('an expired token is refused from its expiration on; an unparseable expiration counts as expired', async () => {
  const s = setup(tokenSecret({ ...GOOD, expiration: new Date(Date.UTC(2026, 0, 1) + 60_000).toISOString() }));
  assert.notEqual(await s.auth(TOKEN), undefined);
  s.clock.step(60_000);
  assert.equal(await s.auth(TOKEN), undefined);
  assert.equal(await setup(tokenSecret({ ...GOOD, expiration: 'tomorrow' })).auth(TOKEN), undefined);
});
