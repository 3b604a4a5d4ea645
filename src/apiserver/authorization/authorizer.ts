/**
 * Authorization, like upstream's authorizer.Authorizer: the request's
 * attributes in, a decision out. A union of authorizers stops at the first
 * that allows or denies; with no opinion from any, the request is forbidden.
 */
import { forbidden, type StatusError } from '../../api/index.js';
import type { UserInfo } from '../authentication/index.js';

/** What a request asks to do, as upstream's authorizer.Attributes. */
export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** For non-resource requests: the URL path. */
  path: string;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  /** A list's or watch's raw `fieldSelector` (upstream's GetFieldSelector); absent for other requests. */
  fieldSelector?: string;
}

/** An authorizer's answer; `reason` explains an allow or deny. */
export type Decision = { decision: 'allow' | 'deny' | 'noOpinion'; reason: string };

/** One authorizer (RBAC, Node, AlwaysAllow, the privileged-group check). */
export interface Authorizer {
  authorize(a: Attributes): Decision;
}

/** No opinion: the next authorizer decides. */
export const NO_OPINION: Decision = { decision: 'noOpinion', reason: '' };
const ALLOW: Decision = { decision: 'allow', reason: '' };

/** Authorizes everything (--authorization-mode=AlwaysAllow). */
export const alwaysAllow: Authorizer = { authorize: () => ALLOW };

/** Members of these groups may do anything, before any other authorizer is asked (upstream's system:masters). */
export function privilegedGroups(...groups: string[]): Authorizer {
  return { authorize: (a) => (a.user.groups.some((g) => groups.includes(g)) ? ALLOW : NO_OPINION) };
}

/** Asks each authorizer in turn, as upstream's union authorizer; the reasons of those without an opinion are kept. */
export function union(authorizers: readonly Authorizer[]): Authorizer {
  return {
    authorize(a) {
      const reasons: string[] = [];
      for (const z of authorizers) {
        const d = z.authorize(a);
        if (d.decision !== 'noOpinion') return d;
        if (d.reason !== '') reasons.push(d.reason);
      }
      return { decision: 'noOpinion', reason: reasons.join('\n') };
    },
  };
}

/** The 403 for a request `d` did not allow: upstream's text, then the authorizers' reasons if any. */
export function forbiddenError(a: Attributes, d: Decision): StatusError {
  const msg = forbiddenMessage(a);
  return forbidden({ group: a.apiGroup, resource: a.resource }, a.name, d.reason === '' ? msg : `${msg}: ${d.reason}`);
}

/**
 * Upstream's forbidden text (responsewriters.forbiddenMessage): `User "u" cannot list resource "pods" in API
 * group "" in the namespace "n"`, `... at the cluster scope`, or `... cannot get path "/x"`.
 */
export function forbiddenMessage(a: Attributes): string {
  if (!a.isResourceRequest)
    return `User ${JSON.stringify(a.user.username)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const where = a.namespace !== '' ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${JSON.stringify(a.user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}
