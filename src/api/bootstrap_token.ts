/**
 * Bootstrap tokens, like k8s.io/cluster-bootstrap/token: the Secret type,
 * name prefix and data keys kubeadm writes, the token grammar, and the
 * expiry rule shared by the API server's authenticator and the tokencleaner.
 */
import type { Secret } from './types/index.js';

/** The Secret type of a bootstrap token (bootstrapapi.SecretTypeBootstrapToken). */
export const SECRET_TYPE_BOOTSTRAP_TOKEN = 'bootstrap.kubernetes.io/token';
/** Bootstrap token Secrets are named this plus the token id, in kube-system. */
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
/** The namespace bootstrap token Secrets live in. */
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
/** The user of a bootstrap token is this plus the token id. */
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
/** Every bootstrap token's group; `auth-extra-groups` must start with it plus ':'. */
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';

/** The data keys of a bootstrap token Secret. */
export const BOOTSTRAP_TOKEN_KEYS = {
  id: 'token-id',
  secret: 'token-secret',
  expiration: 'expiration',
  usageAuthentication: 'usage-bootstrap-authentication',
  usageSigning: 'usage-bootstrap-signing',
  extraGroups: 'auth-extra-groups',
} as const;

const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** Splits `<id>.<secret>`; undefined when the token is not of bootstrap form. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_RE.exec(token);
  return m === null ? undefined : { id: m[1]!, secret: m[2]! };
}

/** A value of a Secret's data (base64-decoded), or undefined. */
export function secretDataValue(s: Secret, key: string): string | undefined {
  const v = s.data?.[key];
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
}

/**
 * When the token expires (ms since the epoch), or undefined if it never does. An expiration that does
 * not parse counts as already expired, as upstream's bootstraputil treats it.
 */
export function bootstrapTokenExpiry(s: Secret): number | undefined {
  const v = secretDataValue(s, BOOTSTRAP_TOKEN_KEYS.expiration);
  if (v === undefined || v === '') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
}

/** The extra groups of a token Secret; undefined when one of them is not a valid bootstrap group. */
export function bootstrapTokenExtraGroups(s: Secret): string[] | undefined {
  const v = secretDataValue(s, BOOTSTRAP_TOKEN_KEYS.extraGroups);
  if (v === undefined || v === '') return [];
  const groups = v.split(',').map((g) => g.trim());
  return groups.every((g) => EXTRA_GROUP_RE.test(g)) ? groups : undefined;
}

/** A bootstrap token Secret as `kubeadm token create` writes it, for `<id>.<secret>` in the given extra groups. */
export function bootstrapTokenSecret(id: string, secret: string, extraGroups: readonly string[]): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: BOOTSTRAP_TOKEN_SECRET_PREFIX + id, namespace: BOOTSTRAP_TOKEN_NAMESPACE },
    type: SECRET_TYPE_BOOTSTRAP_TOKEN,
    stringData: {
      [BOOTSTRAP_TOKEN_KEYS.id]: id,
      [BOOTSTRAP_TOKEN_KEYS.secret]: secret,
      [BOOTSTRAP_TOKEN_KEYS.usageAuthentication]: 'true',
      [BOOTSTRAP_TOKEN_KEYS.usageSigning]: 'true',
      [BOOTSTRAP_TOKEN_KEYS.extraGroups]: extraGroups.join(','),
    },
  };
}
