/**
 * Classification, like upstream's apf_controller match.go: a request
 * matches a FlowSchema when one of its rules has a subject that names the
 * user (by name, group or ServiceAccount) and a resource rule (verb, API
 * group, resource[/subresource], namespace or cluster scope) or a
 * non-resource rule (verb, URL or "prefix/*") that covers the request.
 */
import type {
  FlowSchema,
  FlowSubject,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  ResourcePolicyRule,
} from '../../api/index.js';
import type { UserInfo } from '../authentication/index.js';
import type { RequestInfo } from '../request_info.js';

const SA_PREFIX = 'system:serviceaccount:';

const has = (list: readonly string[] | undefined, v: string): boolean =>
  list !== undefined && (list.includes('*') || list.includes(v));

/** Whether a subject names the user, like upstream's matchesSubject (ServiceAccount "*" matches a namespace's). */
export function matchesSubject(s: FlowSubject, user: UserInfo): boolean {
  switch (s.kind) {
    case 'User':
      return s.user !== undefined && (s.user.name === '*' || s.user.name === user.username);
    case 'Group':
      return s.group !== undefined && (s.group.name === '*' || user.groups.includes(s.group.name));
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (sa === undefined || !user.username.startsWith(SA_PREFIX)) return false;
      const rest = user.username.slice(SA_PREFIX.length);
      const colon = rest.indexOf(':');
      if (colon < 0 || rest.slice(0, colon) !== sa.namespace) return false;
      return sa.name === '*' || rest.slice(colon + 1) === sa.name;
    }
    default:
      return false;
  }
}

/** Whether a resource rule covers a resource request. */
export function matchesResourceRule(r: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb) || !has(r.apiGroups, info.apiGroup)) return false;
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`;
  if (!has(r.resources, resource)) return false;
  return info.namespace === '' ? r.clusterScope === true : has(r.namespaces, info.namespace);
}

/** Whether a non-resource rule covers a non-resource request: "*", the exact path, or a "prefix/*". */
export function matchesNonResourceRule(r: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb)) return false;
  for (const u of r.nonResourceURLs) {
    if (u === '*' || u === info.path) return true;
    if (u.endsWith('*') && info.path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

function matchesRule(rule: PolicyRulesWithSubjects, info: RequestInfo, user: UserInfo): boolean {
  if (!rule.subjects.some((s) => matchesSubject(s, user))) return false;
  if (info.isResourceRequest) return (rule.resourceRules ?? []).some((r) => matchesResourceRule(r, info));
  return (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(r, info));
}

/** Whether any of the FlowSchema's rules matches the request. */
export function matchesFlowSchema(fs: FlowSchema, info: RequestInfo, user: UserInfo): boolean {
  return (fs.spec?.rules ?? []).some((r) => matchesRule(r, info, user));
}

/** The flow distinguisher of a request under a schema: the user, the namespace, or nothing. */
export function flowDistinguisher(fs: FlowSchema, info: RequestInfo, user: UserInfo): string {
  switch (fs.spec?.distinguisherMethod?.type) {
    case 'ByUser':
      return user.username;
    case 'ByNamespace':
      return info.namespace;
    default:
      return '';
  }
}

/** Sorts FlowSchemas as upstream classifies: lowest matchingPrecedence first, then by name. */
export function byPrecedence(a: FlowSchema, b: FlowSchema): number {
  const d = (a.spec?.matchingPrecedence ?? 0) - (b.spec?.matchingPrecedence ?? 0);
  if (d !== 0) return d;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}
