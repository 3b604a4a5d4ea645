import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, createVerify, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signJWT } from './jwt.js';
import { generateSigningKey, loadOrCreateSigningKey, publicJWK, signingKeyFrom } from './signing_key.js';
import { ServiceAccountTokenIssuer } from './token_issuer.js';

test('the key is generated once (PEM, mode 0600) and the same key is read back after a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-sakey-'));
  try {
    const file = join(dir, 'sub', 'service-account.key');
    const first = loadOrCreateSigningKey(file);
    assert.match(readFileSync(file, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const again = loadOrCreateSigningKey(file);
    assert.equal(again.keyID, first.keyID);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the kid is base64url(SHA-256(PKIX DER of the public key)), like upstream keyIDFromPublicKey', () => {
  const key = generateSigningKey();
  const der = key.publicKey.export({ type: 'spki', format: 'der' });
  assert.equal(key.keyID, createHash('sha256').update(der).digest('base64url'));
  assert.doesNotMatch(key.keyID, /[=+/]/);
});

test('a token signed with the key verifies against its published JWK, and its header is alg and kid only', () => {
  const key = generateSigningKey();
  const token = signJWT({ sub: 'x' }, key);
  const [h, p, s] = token.split('.');
  assert.deepEqual(JSON.parse(Buffer.from(h!, 'base64url').toString()), { alg: 'RS256', kid: key.keyID });
  assert.deepEqual(JSON.parse(Buffer.from(p!, 'base64url').toString()), { sub: 'x' });
  const jwk = publicJWK(key);
  assert.equal(jwk.kid, key.keyID);
  const pub = createPublicKey({ key: { kty: jwk.kty!, n: jwk.n!, e: jwk.e! }, format: 'jwk' });
  assert.ok(createVerify('RSA-SHA256').update(`${h}.${p}`).verify(pub, Buffer.from(s!, 'base64url')));
  assert.ok(!createVerify('RSA-SHA256').update(`${h}.${p}x`).verify(pub, Buffer.from(s!, 'base64url')));
});

test('a non-RSA key is refused (kscale signs RS256 only)', () => {
  assert.throws(
    () => signingKeyFrom(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey),
    /want an RSA private key/,
  );
});

test('the issuer defaults audiences to itself, cuts lifetimes to the maximum and publishes upstream discovery fields', () => {
  const key = generateSigningKey();
  const issuer = new ServiceAccountTokenIssuer({ issuer: 'https://iss.example/', key, maxExpirationSeconds: 7200 });
  assert.deepEqual(issuer.audiences, ['https://iss.example/']);
  assert.equal(issuer.effectiveExpiration(3600), 3600);
  assert.equal(issuer.effectiveExpiration(86400), 7200);
  assert.equal(new ServiceAccountTokenIssuer({ key }).effectiveExpiration(86400), 86400);
  assert.deepEqual(issuer.openIDConfiguration(), {
    issuer: 'https://iss.example/',
    jwks_uri: 'https://iss.example/openid/v1/jwks',
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  });
  assert.deepEqual(
    issuer.jwks().keys.map((k) => (k as { kid: string }).kid),
    [key.keyID],
  );
  assert.deepEqual(new ServiceAccountTokenIssuer({ key, audiences: ['api'] }).audiences, ['api']);
});
