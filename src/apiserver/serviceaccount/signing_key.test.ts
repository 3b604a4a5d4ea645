import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signJWT, verifyJWS } from './jwt.js';
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

for (const kind of ['ec', 'rsa'] as const) {
  test(`a token signed with a generated ${kind} key verifies against its published JWK, and its header is alg and kid only`, async () => {
    const key = generateSigningKey(kind);
    const alg = kind === 'ec' ? 'ES256' : 'RS256';
    assert.equal(key.alg, alg);
    const token = await signJWT({ sub: 'x' }, key);
    const [h, p, s] = token.split('.');
    assert.deepEqual(JSON.parse(Buffer.from(h!, 'base64url').toString()), { alg, kid: key.keyID });
    assert.deepEqual(JSON.parse(Buffer.from(p!, 'base64url').toString()), { sub: 'x' });
    const jwk = publicJWK(key);
    assert.equal(jwk.kid, key.keyID);
    assert.equal(jwk.alg, alg);
    // The JWK alone (as a relying party reads /openid/v1/jwks) rebuilds the key.
    const { kid: _kid, alg: _alg, use: _use, ...material } = jwk;
    const pub = createPublicKey({ key: material, format: 'jwk' });
    const sig = Buffer.from(s!, 'base64url');
    // RFC 7518: ES256 is r||s, 64 bytes, not DER.
    if (kind === 'ec') assert.equal(sig.length, 64);
    const opts = { key: pub, dsaEncoding: 'ieee-p1363' as const };
    assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), opts, sig));
    assert.ok(!verify('sha256', Buffer.from(`${h}.${p}x`), opts, sig));
    assert.ok(verifyJWS(`${h}.${p}`, s!, pub));
    assert.ok(!verifyJWS(`${h}.${p}x`, s!, pub));
  });
}

test('the default generated key is ECDSA P-256; an RSA key in the data dir is used as it is', () => {
  assert.equal(generateSigningKey().alg, 'ES256');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  assert.equal(signingKeyFrom(rsa).alg, 'RS256');
});

test('keys other than RSA and ECDSA P-256 are refused', () => {
  assert.throws(
    () => signingKeyFrom(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey),
    /want an RSA or ECDSA P-256 private key, got ec \(secp384r1\)/,
  );
  assert.throws(() => signingKeyFrom(generateKeyPairSync('ed25519').privateKey), /got ed25519/);
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
    id_token_signing_alg_values_supported: ['ES256'],
  });
  assert.deepEqual(
    issuer.jwks().keys.map((k) => (k as { kid: string }).kid),
    [key.keyID],
  );
  assert.deepEqual(new ServiceAccountTokenIssuer({ key, audiences: ['api'] }).audiences, ['api']);
});
