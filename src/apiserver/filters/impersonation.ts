/**
 * The impersonation filter, like upstream's WithImpersonation: a request with
 * `Impersonate-User` (and optionally `Impersonate-Group`, `Impersonate-Uid`,
 * `Impersonate-Extra-<key>`) acts as that user when the authenticated caller
 * may `impersonate` each part (users, groups, serviceaccounts, uids,
 * userextras/<key>); otherwise 403. `kubectl --as`/`--as-group` send these.
 * Requests on the lab's plain-HTTP port skip it.
 */
import { internal } from '../../api/index.js';
import { UNSECURED_USER, type UserInfo } from '../authentication/index.js';
import { forbiddenError, type Attributes, type Authorizer } from '../authorization/index.js';
import type { Filter } from '../handler_chain.js';

const PREFIX = 'impersonate-';
const EXTRA_PREFIX = 'impersonate-extra-';
const SA_PREFIX = 'system:serviceaccount:';

/** One part of the identity asked for, and the resource the caller needs `impersonate` on for it. */
interface Request {
  resource: 'users' | 'serviceaccounts' | 'groups' | 'userextras' | 'uids';
  name: string;
  namespace?: string;
  extraKey?: string;
}

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The parts a request's headers ask for, in upstream's order; undefined when it impersonates nobody. */
export function impersonationRequests(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Request[] | undefined {
  let any = false;
  for (const k in headers)
    if (k.startsWith(PREFIX)) {
      any = true;
      break;
    }
  if (!any) return undefined;
  const out: Request[] = [];
  const userName = values(headers['impersonate-user'])[0] ?? '';
  if (userName !== '') {
    const sa = serviceAccountOf(userName);
    out.push(sa === undefined ? { resource: 'users', name: userName } : { resource: 'serviceaccounts', ...sa });
  }
  for (const g of values(headers['impersonate-group'])) out.push({ resource: 'groups', name: g });
  for (const k in headers) {
    if (!k.startsWith(EXTRA_PREFIX)) continue;
    const extraKey = unescapeExtraKey(k.slice(EXTRA_PREFIX.length));
    for (const v of values(headers[k])) out.push({ resource: 'userextras', name: v, extraKey });
  }
  const uid = values(headers['impersonate-uid'])[0] ?? '';
  if (uid !== '') out.push({ resource: 'uids', name: uid });
  if (out.length === 0) return undefined;
  if (userName === '')
    // Upstream answers this with an internal error too.
    throw internal(
      new Error(`requested ${out.map((r) => `${r.resource}/${r.name}`).join(', ')} without impersonating a user`),
    );
  return out;
}

function hasImpersonation(headers: Readonly<Record<string, unknown>>): boolean {
  for (const k in headers) if (k.startsWith(PREFIX)) return true;
  return false;
}

// Node joins a repeated header's values with ", "; `--as-group=a --as-group=b,c` must stay three groups, not one.
function distinctHeaders(raw: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i].toLowerCase();
    if (k.startsWith(PREFIX)) (out[k] ??= []).push(raw[i + 1]);
  }
  return out;
}

function serviceAccountOf(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? { namespace: parts[0], name: parts[1] } : undefined;
}

function unescapeExtraKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k;
  }
}

/** The user `requests` describe, with upstream's implied groups (system:authenticated, a ServiceAccount's groups). */
export function impersonatedUser(requests: readonly Request[]): UserInfo {
  let username = '';
  let uid: string | undefined;
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  const groupsSpecified = requests.some((r) => r.resource === 'groups');
  for (const r of requests) {
    if (r.resource === 'users') username = r.name;
    else if (r.resource === 'serviceaccounts') {
      username = `${SA_PREFIX}${r.namespace}:${r.name}`;
      if (!groupsSpecified) groups.push('system:serviceaccounts', `system:serviceaccounts:${r.namespace}`);
    } else if (r.resource === 'groups') groups.push(r.name);
    else if (r.resource === 'userextras') (extra[r.extraKey!] ??= []).push(r.name);
    else uid = r.name;
  }
  if (username !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated'))
      groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  return {
    username,
    groups,
    ...(uid === undefined ? {} : { uid }),
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
  };
}

/** Checks and applies impersonation headers; the authorizer must allow `impersonate` on each part. */
export function withImpersonation(authorizer: Authorizer): Filter {
  return (next) => (req, res, info) => {
    const caller = info.user;
    if (caller === undefined || caller === UNSECURED_USER) return next(req, res, info);
    let requests: Request[] | undefined;
    try {
      requests = hasImpersonation(req.headers) ? impersonationRequests(distinctHeaders(req.rawHeaders)) : undefined;
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (requests === undefined) return next(req, res, info);
    for (const r of requests) {
      const a: Attributes = {
        user: caller,
        verb: 'impersonate',
        isResourceRequest: true,
        path: '',
        namespace: r.namespace ?? '',
        apiGroup: r.resource === 'userextras' || r.resource === 'uids' ? 'authentication.k8s.io' : '',
        resource: r.resource,
        subresource: r.extraKey ?? '',
        name: r.name,
      };
      const d = authorizer.authorize(a);
      if (d.decision !== 'allow') return Promise.reject(forbiddenError(a, d));
    }
    info.user = impersonatedUser(requests);
    for (const k of Object.keys(req.headers)) if (k.startsWith(PREFIX)) delete req.headers[k];
    return next(req, res, info);
  };
}
