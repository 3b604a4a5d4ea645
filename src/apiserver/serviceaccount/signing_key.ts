/**
 * The key that signs ServiceAccount tokens, like kube-apiserver's
 * --service-account-signing-key-file: an RSA private key in PEM. kscale
 * generates one on first start and reuses it after a restart, so tokens it
 * issued stay verifiable.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** An RSA key pair and its key id. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Like upstream's keyIDFromPublicKey: base64url(SHA-256(PKIX DER of the public key)), unpadded. */
  keyID: string;
}

/** The key id of a public key, computed as upstream does, so a JWKS consumer sees the same `kid` in the token header. */
export function keyIDOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** A SigningKey from an RSA private key; any other key type is an error (kscale signs RS256 only). */
export function signingKeyFrom(privateKey: KeyObject): SigningKey {
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new Error(
      `service account signing key: want an RSA private key, got ${String(privateKey.asymmetricKeyType)}`,
    );
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyID: keyIDOf(publicKey) };
}

/** A fresh 2048-bit RSA key (in memory only). */
export function generateSigningKey(): SigningKey {
  return signingKeyFrom(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
}

/** Reads the PEM key at `file`, or generates one and writes it there (mode 0600, atomically) when the file is missing. */
export function loadOrCreateSigningKey(file: string): SigningKey {
  if (existsSync(file)) return signingKeyFrom(createPrivateKey(readFileSync(file)));
  const key = generateSigningKey();
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, key.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  renameSync(tmp, file);
  return key;
}

/** The public key as a JWK for /openid/v1/jwks, like upstream's: use sig, alg RS256, the same kid as the tokens. */
export function publicJWK(key: SigningKey): JsonWebKey {
  const jwk = key.publicKey.export({ format: 'jwk' });
  return { use: 'sig', kty: jwk.kty, kid: key.keyID, alg: 'RS256', n: jwk.n, e: jwk.e };
}
