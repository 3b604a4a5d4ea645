/**
 * The RBAC authorizer, like upstream's plugin/pkg/auth/authorizer/rbac: a
 * request is allowed when a ClusterRoleBinding, or a RoleBinding in the
 * request's namespace, binds the user (by name, group or ServiceAccount) to
 * a role with a rule that allows it. RBAC never denies: without a match it
 * has no opinion. Bindings are indexed by subject, so a request looks only at
 * the bindings of its user and groups.
 */
import type { UserInfo } from '../../authentication/index.js';
import type { Attributes, Authorizer, Decision } from '../authorizer.js';
import { NO_OPINION } from '../authorizer.js';
import { ruleAllows, type Rule } from './rules.js';

interface Binding {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  namespace: string;
  name: string;
  roleKind: string;
  roleName: string;
}

type Obj = Record<string, unknown>;
const meta = (o: Obj): { name?: string; namespace?: string } =>
  (o.metadata ?? {}) as { name?: string; namespace?: string };

/** The roles and bindings the authorizer evaluates, kept current by informers. */
export class RBACAuthorizer implements Authorizer {
  private readonly clusterRoles = new Map<string, Rule[]>();
  private readonly roles = new Map<string, Rule[]>();
  /** Binding key (kind/ns/name) to binding, and subject key to binding keys. */
  private readonly bindings = new Map<string, BindingEntry>();
  private readonly bySubject = new Map<string, Set<string>>();

  /** Sets or replaces a ClusterRole or Role. */
  putRole(kind: 'ClusterRole' | 'Role', obj: Obj): void {
    const rules = Array.isArray(obj.rules) ? (obj.rules as Rule[]) : [];
    if (kind === 'ClusterRole') this.clusterRoles.set(meta(obj).name ?? '', rules);
    else this.roles.set(`${meta(obj).namespace ?? ''}/${meta(obj).name ?? ''}`, rules);
  }

  /** Forgets a ClusterRole or Role. */
  deleteRole(kind: 'ClusterRole' | 'Role', obj: Obj): void {
    if (kind === 'ClusterRole') this.clusterRoles.delete(meta(obj).name ?? '');
    else this.roles.delete(`${meta(obj).namespace ?? ''}/${meta(obj).name ?? ''}`);
  }

  /** Forgets every ClusterRole or every Role (before a relist). */
  clearRoles(kind: 'ClusterRole' | 'Role'): void {
    (kind === 'ClusterRole' ? this.clusterRoles : this.roles).clear();
  }

  /** Sets or replaces a ClusterRoleBinding or RoleBinding. */
  putBinding(kind: Binding['kind'], obj: Obj): void {
    this.deleteBinding(kind, obj);
    const namespace = kind === 'RoleBinding' ? (meta(obj).namespace ?? '') : '';
    const ref = (obj.roleRef ?? {}) as { kind?: string; name?: string };
    const binding: Binding = {
      kind,
      namespace,
      name: meta(obj).name ?? '',
      roleKind: ref.kind ?? '',
      roleName: ref.name ?? '',
    };
    const subjects = (Array.isArray(obj.subjects) ? (obj.subjects as Obj[]) : [])
      .map((s) => subjectKey(s, namespace))
      .filter((k): k is string => k !== undefined);
    const key = bindingKey(kind, obj);
    this.bindings.set(key, { binding, subjects, allowed: new Map() });
    for (const s of subjects) {
      let set = this.bySubject.get(s);
      if (set === undefined) this.bySubject.set(s, (set = new Set()));
      set.add(key);
    }
  }

  /** Forgets a binding. */
  deleteBinding(kind: Binding['kind'], obj: Obj): void {
    const key = bindingKey(kind, obj);
    const old = this.bindings.get(key);
    if (old === undefined) return;
    this.bindings.delete(key);
    for (const s of old.subjects) {
      const set = this.bySubject.get(s);
      set?.delete(key);
      if (set?.size === 0) this.bySubject.delete(s);
    }
  }

  /** Forgets every binding of one kind (before a relist). */
  clearBindings(kind: Binding['kind']): void {
    for (const b of [...this.bindings.values()])
      if (b.binding.kind === kind)
        this.deleteBinding(kind, { metadata: { name: b.binding.name, namespace: b.binding.namespace } });
  }

  /** The rules of a Role (in `namespace`) or ClusterRole; undefined when the informer has no such role. */
  roleRules(kind: string, namespace: string, name: string): Rule[] | undefined {
    if (kind === 'ClusterRole') return this.clusterRoles.get(name);
    return kind === 'Role' ? this.roles.get(`${namespace}/${name}`) : undefined;
  }

  /**
   * Every rule `user` holds in `namespace` (cluster-wide only when ''), like upstream's
   * RuleResolver.RulesFor: its ClusterRoleBindings' roles and its RoleBindings' there.
   */
  rulesFor(user: UserInfo, namespace: string): Rule[] {
    const out: Rule[] = [];
    const seen = new Set<string>();
    for (const k of subjectKeys(user)) {
      for (const bk of this.bySubject.get(k) ?? []) {
        if (seen.has(bk)) continue;
        seen.add(bk);
        const b = this.bindings.get(bk)!.binding;
        if (b.kind === 'RoleBinding' && b.namespace !== namespace) continue;
        const rules = this.roleRules(b.roleKind, b.namespace, b.roleName);
        if (rules !== undefined) out.push(...rules);
      }
    }
    return out;
  }

  authorize(a: Attributes): Decision {
    for (const k of subjectKeys(a.user)) {
      const set = this.bySubject.get(k);
      if (set === undefined) continue;
      for (const bk of set) {
        const entry = this.bindings.get(bk)!;
        const b = entry.binding;
        if (b.kind === 'RoleBinding' && b.namespace !== a.namespace) continue;
        const rules = this.roleRules(b.roleKind, b.namespace, b.roleName);
        if (rules === undefined) continue;
        for (const r of rules) if (ruleAllows(a, r)) return allowedBy(entry, k);
      }
    }
    return NO_OPINION;
  }
}

interface BindingEntry {
  binding: Binding;
  subjects: string[];
  /** The decision this binding gives each of its subjects, made on first use: its reason names both. */
  allowed: Map<string, Decision>;
}

function allowedBy(entry: BindingEntry, subject: string): Decision {
  let d = entry.allowed.get(subject);
  if (d === undefined) {
    const b = entry.binding;
    const where = b.kind === 'RoleBinding' ? ` in namespace ${JSON.stringify(b.namespace)}` : '';
    d = Object.freeze({
      decision: 'allow' as const,
      reason: `RBAC: allowed by ${b.kind} ${JSON.stringify(b.name)} of ${b.roleKind} ${JSON.stringify(b.roleName)} to ${subjectText(subject)}${where}`,
    });
    entry.allowed.set(subject, d);
  }
  return d;
}

// A connection's certificate or token gives the same UserInfo object to each of its requests: its keys are built once.
const keysOf = new WeakMap<UserInfo, string[]>();

function subjectKeys(user: UserInfo): string[] {
  let keys = keysOf.get(user);
  if (keys === undefined) {
    keys = [`u:${user.username}`, ...user.groups.map((g) => `g:${g}`)];
    keysOf.set(user, keys);
  }
  return keys;
}

function bindingKey(kind: string, obj: Obj): string {
  return `${kind}/${meta(obj).namespace ?? ''}/${meta(obj).name ?? ''}`;
}

// The index key a subject matches: a user name, a group, or a ServiceAccount's user name
// (its namespace defaults to the RoleBinding's, as upstream's appliesToUser has it).
function subjectKey(s: Obj, bindingNamespace: string): string | undefined {
  const name = typeof s.name === 'string' ? s.name : '';
  switch (s.kind) {
    case 'User':
      return `u:${name}`;
    case 'Group':
      return `g:${name}`;
    case 'ServiceAccount': {
      const ns = typeof s.namespace === 'string' && s.namespace !== '' ? s.namespace : bindingNamespace;
      return ns === '' ? undefined : `u:system:serviceaccount:${ns}:${name}`;
    }
    default:
      return undefined;
  }
}

function subjectText(key: string): string {
  return key.startsWith('g:') ? `Group ${JSON.stringify(key.slice(2))}` : `User ${JSON.stringify(key.slice(2))}`;
}
