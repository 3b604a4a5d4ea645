/**
 * RBAC escalation prevention, like upstream's pkg/registry/rbac (escalation_check.go and the
 * policy-based Role, ClusterRole and binding storages) over rbac/validation's Covers and
 * ConfirmNoEscalation: a user may write a role only with rules they already hold, and bind a
 * role only if they hold its rules, unless they are in system:masters or are authorized for the
 * `escalate` (roles) or `bind` (bindings) verb on it.
 */
import type { UserInfo } from '../../authentication/index.js';
import type { Attributes, Authorizer } from '../authorizer.js';
import type { Rule } from './rules.js';

const ALL = '*';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A rule split into one verb over one group and resource (and name), or one verb over one URL (BreakdownRule). */
export function breakdownRule(r: Rule): Rule[] {
  const out: Rule[] = [];
  for (const g of r.apiGroups ?? [])
    for (const res of r.resources ?? [])
      for (const v of r.verbs ?? []) {
        if ((r.resourceNames ?? []).length === 0) out.push({ apiGroups: [g], resources: [res], verbs: [v] });
        else
          for (const n of r.resourceNames!)
            out.push({ apiGroups: [g], resources: [res], resourceNames: [n], verbs: [v] });
      }
  for (const u of r.nonResourceURLs ?? [])
    for (const v of r.verbs ?? []) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

const hasAll = (set: readonly string[], want: readonly string[]): boolean => want.every((w) => set.includes(w));

function resourcesCover(owner: readonly string[], want: readonly string[]): boolean {
  if (owner.includes(ALL) || hasAll(owner, want)) return true;
  return want.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    // `*/scale` covers every resource's scale subresource.
    return slash >= 0 && owner.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlsCover(owner: readonly string[], want: readonly string[]): boolean {
  return want.every((u) =>
    owner.some((o) => o === u || o === ALL || (o.endsWith('*') && u.startsWith(o.slice(0, -1)))),
  );
}

/** Whether `owner` grants everything `sub` does (upstream's ruleCovers). */
export function ruleCovers(owner: Rule, sub: Rule): boolean {
  const ov = owner.verbs ?? [];
  const og = owner.apiGroups ?? [];
  const on = owner.resourceNames ?? [];
  const sn = sub.resourceNames ?? [];
  return (
    (ov.includes(ALL) || hasAll(ov, sub.verbs ?? [])) &&
    (og.includes(ALL) || hasAll(og, sub.apiGroups ?? [])) &&
    resourcesCover(owner.resources ?? [], sub.resources ?? []) &&
    urlsCover(owner.nonResourceURLs ?? [], sub.nonResourceURLs ?? []) &&
    (on.length === 0 || (sn.length > 0 && hasAll(on, sn)))
  );
}

/** The parts of `servant` that no rule of `owner` covers (upstream's Covers, broken down into single grants). */
export function uncovered(owner: readonly Rule[], servant: readonly Rule[]): Rule[] {
  const missing: Rule[] = [];
  for (const r of servant)
    for (const atom of breakdownRule(r)) if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
  return missing;
}

/** Merges single-resource grants' verbs, as upstream's CompactRules does before describing them. */
export function compactRules(rules: readonly Rule[]): Rule[] {
  const out: Rule[] = [];
  const simple = new Map<string, Rule>();
  for (const r of rules) {
    const simpleKey =
      (r.apiGroups ?? []).length === 1 &&
      (r.resources ?? []).length === 1 &&
      (r.nonResourceURLs ?? []).length === 0 &&
      (r.resourceNames ?? []).length <= 1
        ? JSON.stringify([r.apiGroups, r.resources, r.resourceNames ?? null])
        : undefined;
    if (simpleKey === undefined) {
      out.push(r);
      continue;
    }
    const existing = simple.get(simpleKey);
    if (existing === undefined) simple.set(simpleKey, { ...r, verbs: [...(r.verbs ?? [])] });
    else existing.verbs = [...(existing.verbs ?? []), ...(r.verbs ?? [])];
  }
  return [...out, ...simple.values()];
}

// Go's %q of a []string: ["a" "b"].
const goQuoted = (xs: readonly string[]): string => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;

/** A rule as upstream's rbacv1helpers.CompactString prints it: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: Rule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoted(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoted(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoted(r.resourceNames!)}`);
  if ((r.verbs ?? []).length > 0) parts.push(`Verbs:${goQuoted(r.verbs!)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * Upstream's ConfirmNoEscalation: undefined when `held` covers `wanted`, else the message naming
 * the user, their groups and each missing grant (sorted, one per line).
 */
export function confirmNoEscalation(
  user: UserInfo,
  held: readonly Rule[],
  wanted: readonly Rule[],
): string | undefined {
  const missing = uncovered(held, wanted);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  return `user ${JSON.stringify(user.username)} (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
}

/** Upstream's EscalationAllowed: system:masters may grant anything (the loopback client is one of them). */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes('system:masters');
}

function rbacAttributes(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    namespace,
    apiGroup: RBAC_GROUP,
    resource,
    subresource: '',
    name,
  };
}

/** Upstream's RoleEscalationAuthorized: the user may `escalate` on this role or clusterrole. */
export function roleEscalationAuthorized(
  z: Authorizer,
  user: UserInfo,
  resource: string,
  namespace: string,
  name: string,
): boolean {
  return z.authorize(rbacAttributes(user, 'escalate', resource, namespace, name)).decision === 'allow';
}

/** Upstream's BindingAuthorized: the user may `bind` the referenced role (in the binding's namespace). */
export function bindingAuthorized(
  z: Authorizer,
  user: UserInfo,
  roleRef: { kind?: string; name?: string },
  namespace: string,
): boolean {
  const resource = roleRef.kind === 'Role' ? 'roles' : roleRef.kind === 'ClusterRole' ? 'clusterroles' : '';
  if (resource === '') return false;
  return z.authorize(rbacAttributes(user, 'bind', resource, namespace, roleRef.name ?? '')).decision === 'allow';
}
