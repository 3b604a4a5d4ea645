/**
 * The bootstrap token authenticator, like upstream's
 * plugin/pkg/auth/authenticator/token/bootstrap (--enable-bootstrap-token-auth):
 * a token `<id>.<secret>` is user `system:bootstrap:<id>` in
 * `system:bootstrappers` (plus the Secret's `auth-extra-groups`) when the
 * kube-system Secret `bootstrap-token-<id>` of type
 * `bootstrap.kubernetes.io/token` holds that secret, allows authentication,
 * is not being deleted and has not expired. The Secrets come from an
 * in-server informer, so a lookup is one map read.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  BOOTSTRAP_DEFAULT_GROUP,
  BOOTSTRAP_TOKEN_KEYS,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_USER_PREFIX,
  bootstrapTokenExpiry,
  bootstrapTokenExtraGroups,
  parseBootstrapToken,
  SECRET_TYPE_BOOTSTRAP_TOKEN,
  secretDataValue,
  type Secret,
} from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { Obj } from '../object.js';
import type { TokenAuthenticator } from './request.js';
import { AUTHENTICATED_GROUP } from './user.js';

/** The bootstrap token Secrets of kube-system by name, kept current by an informer (its handler). */
export class BootstrapTokenSecrets {
  private readonly byName = new Map<string, Secret>();

  /** The Secret named `name`, if it is a bootstrap token. */
  get(name: string): Secret | undefined {
    return this.byName.get(name);
  }

  /** The informer's full set. */
  replace(objs: Obj[]): void {
    this.byName.clear();
    for (const o of objs) this.put(o);
  }

  /** An added or changed Secret; one that is no longer a bootstrap token is forgotten. */
  put(obj: Obj): void {
    const s = obj as Secret;
    const name = s.metadata?.name ?? '';
    if (s.type === SECRET_TYPE_BOOTSTRAP_TOKEN && name.startsWith(BOOTSTRAP_TOKEN_SECRET_PREFIX))
      this.byName.set(name, s);
    else this.byName.delete(name);
  }

  /** A deleted Secret. */
  delete(obj: Obj): void {
    this.byName.delete((obj as Secret).metadata?.name ?? '');
  }
}

/** A TokenAuthenticator for bootstrap tokens; undefined for any token it does not accept. */
export function bootstrapTokenAuthenticator(secrets: BootstrapTokenSecrets, clock: Clock): TokenAuthenticator {
  return (token) => {
    const t = parseBootstrapToken(token);
    if (t === undefined) return Promise.resolve(undefined);
    const s = secrets.get(BOOTSTRAP_TOKEN_SECRET_PREFIX + t.id);
    if (s === undefined || s.metadata?.deletionTimestamp !== undefined) return Promise.resolve(undefined);
    const want = secretDataValue(s, BOOTSTRAP_TOKEN_KEYS.secret) ?? '';
    if (!equalConstantTime(want, t.secret)) return Promise.resolve(undefined);
    if (secretDataValue(s, BOOTSTRAP_TOKEN_KEYS.id) !== t.id) return Promise.resolve(undefined);
    const expiry = bootstrapTokenExpiry(s);
    if (expiry !== undefined && expiry <= clock.now()) return Promise.resolve(undefined);
    if (secretDataValue(s, BOOTSTRAP_TOKEN_KEYS.usageAuthentication) !== 'true') return Promise.resolve(undefined);
    const extra = bootstrapTokenExtraGroups(s);
    if (extra === undefined) return Promise.resolve(undefined);
    return Promise.resolve({
      username: BOOTSTRAP_USER_PREFIX + t.id,
      groups: [BOOTSTRAP_DEFAULT_GROUP, ...extra.filter((g) => g !== BOOTSTRAP_DEFAULT_GROUP), AUTHENTICATED_GROUP],
    });
  };
}

function equalConstantTime(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
