import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceAccountClaims, type ClaimsInput } from './claims.js';

const base: ClaimsInput = {
  issuer: 'https://issuer.example',
  namespace: 'team-a',
  serviceAccount: { name: 'robot', uid: 'sa-uid' },
  bound: {},
  audiences: ['https://issuer.example'],
  nowMs: 1_700_000_000_900,
  expirationSeconds: 3600,
  id: 'jti-1',
};

test('the registered claims: iss, sub as system:serviceaccount:<ns>:<name>, whole-second iat = nbf, exp = iat + lifetime', () => {
  const c = serviceAccountClaims(base);
  assert.equal(c.iss, 'https://issuer.example');
  assert.equal(c.sub, 'system:serviceaccount:team-a:robot');
  assert.equal(c.iat, 1_700_000_000);
  assert.equal(c.nbf, 1_700_000_000);
  assert.equal(c.exp, 1_700_003_600);
  assert.equal(c.jti, 'jti-1');
});

test('one audience is a string, several are an array (go-jose Audience)', () => {
  assert.equal(serviceAccountClaims(base).aud, 'https://issuer.example');
  assert.deepEqual(serviceAccountClaims({ ...base, audiences: ['a', 'b'] }).aud, ['a', 'b']);
});

test('the kubernetes.io claim names the namespace and service account, and only the bound objects given', () => {
  assert.deepEqual(serviceAccountClaims(base)['kubernetes.io'], {
    namespace: 'team-a',
    serviceaccount: { name: 'robot', uid: 'sa-uid' },
  });
  const bound = serviceAccountClaims({
    ...base,
    bound: { pod: { name: 'p', uid: 'pu' }, node: { name: 'n', uid: 'nu' } },
  })['kubernetes.io'];
  assert.deepEqual(bound.pod, { name: 'p', uid: 'pu' });
  assert.deepEqual(bound.node, { name: 'n', uid: 'nu' });
  assert.equal(bound.secret, undefined);
});

test("an empty uid is left out, as upstream's omitempty (a pod's node that no longer exists)", () => {
  const k8s = serviceAccountClaims({
    ...base,
    bound: { pod: { name: 'p', uid: 'pu' }, node: { name: 'gone', uid: '' } },
  })['kubernetes.io'];
  assert.deepEqual(JSON.parse(JSON.stringify(k8s.node)), { name: 'gone' });
});
