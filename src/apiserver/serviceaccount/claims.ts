/**
 * The claims of a ServiceAccount token, like upstream's pkg/serviceaccount
 * Claims: the registered JWT claims plus the private `kubernetes.io` claim
 * naming the namespace, the ServiceAccount and the object the token is bound to.
 */

/** A name and uid, the form of every reference in the private claim. */
export interface ObjectRef {
  name: string;
  uid: string;
}

/** The objects a token is bound to, each present only when the TokenRequest named it (node also for a pod on a node). */
export interface BoundObjects {
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

/** What the claims are built from. */
export interface ClaimsInput {
  issuer: string;
  namespace: string;
  serviceAccount: ObjectRef;
  bound: BoundObjects;
  audiences: string[];
  /** Issue time, milliseconds since the epoch. */
  nowMs: number;
  expirationSeconds: number;
  /** The token id (jti). */
  id: string;
}

/** The JWT claims set. */
export interface ServiceAccountClaims {
  aud: string | string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    node?: ObjectRef;
    pod?: ObjectRef;
    secret?: ObjectRef;
    serviceaccount: ObjectRef;
  };
  nbf: number;
  sub: string;
}

/** The authenticated user name of a ServiceAccount, upstream's MakeUsername. */
export const serviceAccountUsername = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;

/**
 * Builds the claims. Like go-jose's Audience, one audience is written as a
 * string and several as an array; times are whole seconds.
 */
export function serviceAccountClaims(c: ClaimsInput): ServiceAccountClaims {
  const now = Math.floor(c.nowMs / 1000);
  const k8s: ServiceAccountClaims['kubernetes.io'] = { namespace: c.namespace, serviceaccount: c.serviceAccount };
  if (c.bound.node !== undefined) k8s.node = c.bound.node;
  if (c.bound.pod !== undefined) k8s.pod = c.bound.pod;
  if (c.bound.secret !== undefined) k8s.secret = c.bound.secret;
  return {
    aud: c.audiences.length === 1 ? c.audiences[0]! : c.audiences,
    exp: now + c.expirationSeconds,
    iat: now,
    iss: c.issuer,
    jti: c.id,
    'kubernetes.io': k8s,
    nbf: now,
    sub: serviceAccountUsername(c.namespace, c.serviceAccount.name),
  };
}
