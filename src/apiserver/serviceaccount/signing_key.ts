/**
 * The key that signs ServiceAccount tokens, like kube-apiserver's
 * --service-account-signing-key-file: an RSA (RS256) or ECDSA P-256 (ES256)
 * private key in PEM, the two forms upstream's token generator signs most
 * often. kscale generates a P-256 key on first start (kubeadm generates RSA):
 * every pod's token is signed, and at 2,500 nodes × 30 pods RS256 signing was
 * 5-7% of the server's CPU, where ES256 signs in a fraction of the time. A key
 * already in the data dir, or one given with the flag, is used as it is, and it
 * is reused after a restart so the tokens it issued stay verifiable.
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

/** The JWS algorithm a key signs with. */
export type SigningAlgorithm = 'RS256' | 'ES256';

/** A key pair, its algorithm and its key id. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  alg: SigningAlgorithm;
  /** Like upstream's keyIDFromPublicKey: base64url(SHA-256(PKIX DER of the public key)), unpadded. */
  keyID: string;
}

/** The key id of a public key, computed as upstream does, so a JWKS consumer sees the same `kid` in the token header. */
export function keyIDOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** A SigningKey from an RSA or ECDSA P-256 private key; any other key is an error. */
export function signingKeyFrom(privateKey: KeyObject): SigningKey {
  const alg = algorithmOf(privateKey);
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, alg, keyID: keyIDOf(publicKey) };
}

/** The algorithm a private or public key signs or verifies with. */
export function algorithmOf(key: KeyObject): SigningAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  throw new Error(
    `service account signing key: want an RSA or ECDSA P-256 private key, got ${String(type)}${curve === undefined ? '' : ` (${curve})`}`,
  );
}

/** A fresh ECDSA P-256 key (in memory only); `rsa` makes a 2048-bit RSA key, kubeadm's kind. */
export function generateSigningKey(kind: 'ec' | 'rsa' = 'ec'): SigningKey {
  const { privateKey } =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return signingKeyFrom(privateKey);
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

/** The public key as a JWK for /openid/v1/jwks, like upstream's: use sig, its alg, the same kid as the tokens. */
export function publicJWK(key: SigningKey): JsonWebKey {
  const jwk = key.publicKey.export({ format: 'jwk' });
  if (key.alg === 'ES256')
    return { use: 'sig', kty: jwk.kty, kid: key.keyID, alg: key.alg, crv: jwk.crv, x: jwk.x, y: jwk.y };
  return { use: 'sig', kty: jwk.kty, kid: key.keyID, alg: key.alg, n: jwk.n, e: jwk.e };
}
