import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notFound } from '../../api/index.js';
import { FakeClock } from '../../clock/index.js';
import { generateSigningKey } from '../serviceaccount/index.js';
import { serviceAccountClaims } from '../serviceaccount/claims.js';
import { signJWT } from '../serviceaccount/jwt.js';
import type { Obj } from '../object.js';
import { serviceAccountTokenAuthenticator } from './serviceaccount_token.js';

const ISS = 'https://kubernetes.default.svc.cluster.local';
const key = generateSigningKey();

function setup(signing = key) {
  const clock = new FakeClock();
  const objects = new Map<string, Obj>([
    ['serviceaccounts/ns/builder', { metadata: { name: 'builder', uid: 'sa-1' } }],
    ['pods/ns/web', { metadata: { name: 'web', uid: 'pod-1' } }],
  ]);
  let reads = 0;
  const auth = serviceAccountTokenAuthenticator({
    issuer: ISS,
    audiences: [ISS],
    publicKey: signing.publicKey,
    clock,
    getObject: async (resource, ns, name) => {
      reads++;
      const o = objects.get(`${resource}/${ns ?? ''}/${name}`);
      if (o === undefined) throw notFound(resource, name);
      return o;
    },
  });
  const token = (
    over: {
      audiences?: string[];
      issuer?: string;
      saUID?: string;
      pod?: { name: string; uid: string };
      expirationSeconds?: number;
    } = {},
  ): Promise<string> =>
    signJWT(
      serviceAccountClaims({
        issuer: over.issuer ?? ISS,
        namespace: 'ns',
        serviceAccount: { name: 'builder', uid: over.saUID ?? 'sa-1' },
        bound: over.pod ? { pod: over.pod } : {},
        audiences: over.audiences ?? [ISS],
        nowMs: clock.now(),
        expirationSeconds: over.expirationSeconds ?? 3600,
        id: 'jti-1',
      }),
      signing,
    );
  return { clock, objects, auth, token, reads: () => reads };
}

test('a valid token is its ServiceAccount, in the service-account groups, with the credential id', async () => {
  const s = setup();
  const user = await s.auth(await s.token());
  assert.deepEqual(user, {
    username: 'system:serviceaccount:ns:builder',
    uid: 'sa-1',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': ['JTI=jti-1'] },
  });
});

test("another issuer, another audience, a forged signature, alg none or garbage: not this authenticator's user", async () => {
  const s = setup();
  assert.equal(await s.auth(await s.token({ issuer: 'https://elsewhere' })), undefined);
  assert.equal(await s.auth(await s.token({ audiences: ['vault'] })), undefined);
  const [h, p, sig] = (await s.token()).split('.');
  const tampered = JSON.parse(Buffer.from(p, 'base64url').toString());
  tampered['kubernetes.io'].serviceaccount.name = 'admin';
  assert.equal(await s.auth(`${h}.${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${sig}`), undefined);
  const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
  assert.equal(await s.auth(`${none}.${p}.`), undefined);
  assert.equal(await s.auth('not.a.jwt'), undefined);
  assert.equal(await s.auth(''), undefined);
});

test("expiry allows upstream's one-minute leeway, and no more", async () => {
  const s = setup();
  const t = await s.token({ expirationSeconds: 600 });
  s.clock.step(600_000 + 59_000);
  assert.notEqual(await s.auth(t), undefined);
  const t2 = await s.token({ expirationSeconds: 600 });
  s.clock.step(600_000 + 61_000);
  assert.equal(await s.auth(t2), undefined);
});

test('a deleted or re-created ServiceAccount, or a deleted or terminating bound pod, invalidates the token', async () => {
  const s = setup();
  assert.equal(await s.auth(await s.token({ saUID: 'sa-old' })), undefined, 're-created under the same name');
  const bound = await s.token({ pod: { name: 'web', uid: 'pod-1' } });
  assert.deepEqual((await s.auth(bound))?.extra?.['authentication.kubernetes.io/pod-name'], ['web']);
  s.clock.step(10_001);
  s.objects.set('pods/ns/web', { metadata: { name: 'web', uid: 'pod-1', deletionTimestamp: '2026-01-01T00:00:00Z' } });
  assert.equal(await s.auth(bound), undefined, 'terminating pod');
  s.objects.delete('pods/ns/web');
  assert.equal(await s.auth(bound), undefined, 'deleted pod');
  s.objects.delete('serviceaccounts/ns/builder');
  assert.equal(await s.auth(await s.token()), undefined, 'deleted ServiceAccount');
});

test('a good result is cached for 10 s, then the objects are read again', async () => {
  const s = setup();
  const t = await s.token();
  await s.auth(t);
  const after1 = s.reads();
  await s.auth(t);
  assert.equal(s.reads(), after1, 'served from the cache');
  s.clock.step(10_001);
  s.objects.delete('serviceaccounts/ns/builder');
  assert.equal(await s.auth(t), undefined, 'the cache expired and the ServiceAccount is gone');
});

test("an RSA key's RS256 tokens authenticate as well; a header naming the other algorithm does not", async () => {
  const rsa = setup(generateSigningKey('rsa'));
  const token = await rsa.token();
  assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, 'RS256');
  assert.equal((await rsa.auth(token))?.username, 'system:serviceaccount:ns:builder');
  const [, p, sig] = token.split('.');
  const es = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'x' })).toString('base64url');
  assert.equal(await rsa.auth(`${es}.${p}.${sig}`), undefined);
  const ec = setup();
  const [, p2, sig2] = (await ec.token()).split('.');
  const rs = Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'x' })).toString('base64url');
  assert.equal(await ec.auth(`${rs}.${p2}.${sig2}`), undefined);
});
