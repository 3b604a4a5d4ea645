/**
 * The ServiceAccount token authenticator, like upstream's
 * pkg/serviceaccount JWT validator with --service-account-lookup: an RS256 or ES256
 * token this server's key signed, for one of its issuers and API audiences,
 * not expired (go-jose's one-minute leeway), whose ServiceAccount and bound
 * pod, secret or node still exist with the uid the token names. Successful
 * results are cached for 10 s, as upstream's token cache does; failures are
 * not.
 */
import type { KeyObject } from 'node:crypto';
import { algorithmOf, verifyJWS } from '../serviceaccount/index.js';
import { isNotFoundError } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { Obj } from '../object.js';
import { AUTHENTICATED_GROUP, type UserInfo } from './user.js';
import type { TokenAuthenticator } from './request.js';

/** What the authenticator checks tokens against. */
export interface ServiceAccountTokenOptions {
  issuer: string;
  /** --api-audiences: a token must name at least one. */
  audiences: readonly string[];
  publicKey: KeyObject;
  clock: Clock;
  /** A quorum read of one object; rejects with a NotFound StatusError when it is gone. */
  getObject(
    resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
    namespace: string | undefined,
    name: string,
  ): Promise<Obj>;
}

const LEEWAY_S = 60;
const CACHE_TTL_MS = 10_000;
const CACHE_MAX = 10_000;

interface Ref {
  name?: string;
  uid?: string;
}

interface Claims {
  iss?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  jti?: string;
  'kubernetes.io'?: { namespace?: string; serviceaccount?: Ref; pod?: Ref; secret?: Ref; node?: Ref };
}

/** A TokenAuthenticator for ServiceAccount JWTs; undefined for tokens that are not this issuer's or no longer valid. */
export function serviceAccountTokenAuthenticator(o: ServiceAccountTokenOptions): TokenAuthenticator {
  const cache = new Map<string, { user: UserInfo; until: number }>();
  return async (token) => {
    const now = o.clock.now();
    const hit = cache.get(token);
    if (hit !== undefined && hit.until > now) return hit.user;
    const claims = verifiedClaims(token, o.publicKey);
    if (claims === undefined || claims.iss !== o.issuer) return undefined;
    const aud = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    if (!aud.some((a) => o.audiences.includes(a))) return undefined;
    const nowS = Math.floor(now / 1000);
    if (typeof claims.exp !== 'number' || claims.exp + LEEWAY_S < nowS) return undefined;
    if (typeof claims.nbf === 'number' && claims.nbf - LEEWAY_S > nowS) return undefined;
    const user = await userOf(claims, o);
    if (user === undefined) return undefined;
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(token, { user, until: Math.min(now + CACHE_TTL_MS, claims.exp * 1000) });
    return user;
  };
}

// The claims of a well-formed token in the key's algorithm whose signature verifies; undefined otherwise.
function verifiedClaims(token: string, key: KeyObject): Claims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString()) as { alg?: string };
    const alg = algorithmOf(key);
    if (header.alg !== alg) return undefined;
    if (!verifyJWS(`${parts[0]}.${parts[1]}`, parts[2], key)) return undefined;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString()) as unknown;
    return claims !== null && typeof claims === 'object' ? (claims as Claims) : undefined;
  } catch {
    return undefined;
  }
}

// The user, once the ServiceAccount and every bound object are still there with the token's uids.
async function userOf(c: Claims, o: ServiceAccountTokenOptions): Promise<UserInfo | undefined> {
  const k = c['kubernetes.io'];
  const ns = k?.namespace;
  const sa = k?.serviceaccount;
  if (ns === undefined || ns === '' || sa?.name === undefined || sa.name === '') return undefined;
  const saObj = await live(o, 'serviceaccounts', ns, sa);
  if (saObj === undefined) return undefined;
  const extra: Record<string, string[]> = {};
  if (k?.pod !== undefined) {
    if ((await live(o, 'pods', ns, k.pod)) === undefined) return undefined;
    extra['authentication.kubernetes.io/pod-name'] = [k.pod.name ?? ''];
    extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid ?? ''];
  }
  if (k?.secret !== undefined && (await live(o, 'secrets', ns, k.secret)) === undefined) return undefined;
  if (k?.node !== undefined) {
    if ((await live(o, 'nodes', undefined, k.node)) === undefined) return undefined;
    extra['authentication.kubernetes.io/node-name'] = [k.node.name ?? ''];
    extra['authentication.kubernetes.io/node-uid'] = [k.node.uid ?? ''];
  }
  if (c.jti !== undefined) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${c.jti}`];
  const uid = (saObj.metadata as { uid?: string } | undefined)?.uid;
  return {
    username: `system:serviceaccount:${ns}:${sa.name}`,
    ...(uid ? { uid } : {}),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, AUTHENTICATED_GROUP],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

// The object a reference names, when it exists with that uid and is not being deleted; like upstream,
// a pod or secret marked for deletion no longer backs a token.
async function live(
  o: ServiceAccountTokenOptions,
  resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  ns: string | undefined,
  ref: Ref,
): Promise<Obj | undefined> {
  if (ref.name === undefined || ref.name === '') return undefined;
  let obj: Obj;
  try {
    obj = await o.getObject(resource, ns, ref.name);
  } catch (err) {
    if (isNotFoundError(err)) return undefined;
    throw err;
  }
  const m = (obj.metadata ?? {}) as { uid?: string; deletionTimestamp?: string };
  if (ref.uid !== undefined && ref.uid !== '' && m.uid !== ref.uid) return undefined;
  if (resource !== 'serviceaccounts' && resource !== 'nodes' && m.deletionTimestamp !== undefined) return undefined;
  return obj;
}
