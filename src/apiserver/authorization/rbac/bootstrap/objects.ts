/**
 * Builders for upstream's bootstrap policy objects: every ClusterRole, Role
 * and binding carries the `kubernetes.io/bootstrapping: rbac-defaults` label
 * and the `rbac.authorization.kubernetes.io/autoupdate: "true"` annotation,
 * so start-up reconciling keeps it complete.
 */
import type { Rule } from '../rules.js';

/** A bootstrap object as stored. */
export type Obj = Record<string, unknown>;

/** The RBAC API group. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const API_VERSION = `${RBAC_GROUP}/v1`;
/** The label every bootstrap object carries. */
export const BOOTSTRAPPING_LABEL = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
/** The annotation that lets start-up reconciling add missing rules and subjects back. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

/** Events are written by nearly every component: create, patch and update in the core and events.k8s.io groups. */
export const EVENTS_RULE: Rule = rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']);

/** A resource rule, as upstream's rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).Names(...). */
export function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): Rule {
  return { verbs, apiGroups, resources, ...(resourceNames === undefined ? {} : { resourceNames }) };
}

/** A non-resource URL rule. */
export function urlRule(verbs: string[], nonResourceURLs: string[]): Rule {
  return { verbs, nonResourceURLs };
}

function metadata(name: string, namespace?: string, labels: Record<string, string> = {}): Obj {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: { ...BOOTSTRAPPING_LABEL, ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

/** A bootstrap ClusterRole; `labels` adds aggregation labels (aggregate-to-view and the like). */
export function clusterRole(name: string, rules: Rule[], labels?: Record<string, string>): Obj {
  return { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: metadata(name, undefined, labels), rules };
}

/** An aggregated ClusterRole: its rules are the union of the ClusterRoles matching `aggregateLabel: "true"`. */
export function aggregatedClusterRole(name: string, aggregateLabel: string, labels?: Record<string, string>): Obj {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRole',
    metadata: metadata(name, undefined, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] },
    rules: [],
  };
}

/** A bootstrap Role in `namespace`. */
export function role(namespace: string, name: string, rules: Rule[]): Obj {
  return { apiVersion: API_VERSION, kind: 'Role', metadata: metadata(name, namespace), rules };
}

/** A binding subject: a user, a group, or a ServiceAccount `namespace/name`. */
export type Subject = { user: string } | { group: string } | { serviceAccount: string };

function subject(s: Subject): Obj {
  if ('user' in s) return { apiGroup: RBAC_GROUP, kind: 'User', name: s.user };
  if ('group' in s) return { apiGroup: RBAC_GROUP, kind: 'Group', name: s.group };
  const [namespace, name] = s.serviceAccount.split('/');
  return { kind: 'ServiceAccount', name, namespace };
}

/** A bootstrap ClusterRoleBinding of ClusterRole `roleName`. */
export function clusterRoleBinding(name: string, roleName: string, subjects: Subject[]): Obj {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: metadata(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
    subjects: subjects.map(subject),
  };
}

/** A bootstrap RoleBinding in `namespace` of Role `roleName`. */
export function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): Obj {
  return {
    apiVersion: API_VERSION,
    kind: 'RoleBinding',
    metadata: metadata(name, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects: subjects.map(subject),
  };
}
