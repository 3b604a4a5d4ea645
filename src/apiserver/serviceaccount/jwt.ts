/**
 * Compact JWS (RS256) signing, the form kube-apiserver's JWT token generator
 * emits: a header of alg and kid only, then the claims.
 */
import { createSign } from 'node:crypto';
import type { SigningKey } from './signing_key.js';

const b64url = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/** Signs `claims` with RS256 under `key`, returning header.payload.signature. */
export function signJWT(claims: object, key: SigningKey): string {
  const input = `${b64url({ alg: 'RS256', kid: key.keyID })}.${b64url(claims)}`;
  const signature = createSign('RSA-SHA256').update(input).sign(key.privateKey).toString('base64url');
  return `${input}.${signature}`;
}
