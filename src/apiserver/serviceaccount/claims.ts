/**
 * The claims of a ServiceAccount token, like upstream's pkg/serviceaccount
 * Claims: the registered JWT claims plus the private `kubernetes.io` claim
 * naming the namespace, the ServiceAccount and the object the token is bound to.
 */

/** A name and uid, the form of every reference in the private claim (an empty one is left out of the JSON). */
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

/** A reference as upstream's JSON writes it: name and uid are `omitempty`. */
function jsonRef(r: ObjectRef): ObjectRef {
  const out: Partial<ObjectRef> = {};
  if (r.name !== '') out.name = r.name;
  if (r.uid !== '') out.uid = r.uid;
  return out as ObjectRef;
}

/** The authenticated user name of a ServiceAccount, upstream's MakeUsername. */
export const serviceAccountUsername = (namespace: string, name: string): string =>
  `system:serviceaccount:${namespace}:${name}`;

/**
 * Builds the claims. Like go-jose's Audience, one audience is written as a
 * string and several as an array; times are whole seconds.
 */
export function serviceAccountClaims(c: ClaimsInput): ServiceAccountClaims {
  const now = Math.floor(c.nowMs / 1000);
  const k8s: ServiceAccountClaims['kubernetes.io'] = {
    namespace: c.namespace,
    serviceaccount: jsonRef(c.serviceAccount),
  };
  if (c.bound.node !== undefined) k8s.node = jsonRef(c.bound.node);
  if (c.bound.pod !== undefined) k8s.pod = jsonRef(c.bound.pod);
  if (c.bound.secret !== undefined) k8s.secret = jsonRef(c.bound.secret);
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
