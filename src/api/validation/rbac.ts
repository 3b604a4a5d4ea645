/**
 * rbac.authorization.k8s.io validation, with upstream's rules and texts
 * (pkg/apis/rbac/validation): names are path segments, every rule names its
 * verbs, a rule is either about resources or about non-resource URLs, a
 * binding's roleRef is fixed once made, and subjects are users, groups or
 * ServiceAccounts of the right API group.
 */
import { isDNS1123Subdomain } from '../meta.js';
import { asString, isObject, type KubeObject } from '../types.js';
import { child, fromMessages, index, invalidValue, notSupported, required, type ErrorList } from './field.js';
import { validateLabelSelector } from './common.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

/** The RBAC API group. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Like path.IsValidPathSegmentName: RBAC names may hold colons (system:node) but not / or %. */
export function validateRBACName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const out: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) out.push(`may not contain '${bad}'`);
  return out;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(asString) : []);
const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? (v.filter(isObject) as Record<string, unknown>[]) : [];

function validatePolicyRule(rule: Record<string, unknown>, namespaced: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  if (strings(rule.verbs).length === 0)
    errs.push(required(child(path, 'verbs'), 'verbs must contain at least one value'));
  const urls = strings(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced)
      errs.push(
        invalidValue(child(path, 'nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'),
      );
    if (
      strings(rule.apiGroups).length > 0 ||
      strings(rule.resources).length > 0 ||
      strings(rule.resourceNames).length > 0
    ) {
      errs.push(
        invalidValue(
          child(path, 'nonResourceURLs'),
          urls,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return errs;
  }
  if (strings(rule.apiGroups).length === 0)
    errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (strings(rule.resources).length === 0)
    errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(o: KubeObject, namespaced: boolean): ErrorList {
  return objects(o.rules).flatMap((r, i) => validatePolicyRule(r, namespaced, index('rules', i)));
}

/** Validates a Role. */
export const validateRole = (role: KubeObject): ErrorList => [
  ...validateObjectMeta(role.metadata, true, validateRBACName),
  ...validateRules(role, true),
];

/** Validates a ClusterRole, with its aggregation rule. */
export function validateClusterRole(role: KubeObject): ErrorList {
  const errs = [...validateObjectMeta(role.metadata, false, validateRBACName), ...validateRules(role, false)];
  const agg = role.aggregationRule;
  if (isObject(agg)) {
    const selectors = objects(agg.clusterRoleSelectors);
    const path = 'aggregationRule.clusterRoleSelectors';
    if (selectors.length === 0)
      errs.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, index(path, i))));
  }
  return errs;
}

function validateSubject(s: Record<string, unknown>, namespaced: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  const name = asString(s.name);
  const apiGroup = asString(s.apiGroup);
  if (name === '') errs.push(required(child(path, 'name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name !== '') errs.push(...fromMessages(child(path, 'name'), name, isDNS1123Subdomain(name)));
      if (apiGroup !== '') errs.push(notSupported(child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && asString(s.namespace) === '') errs.push(required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(child(path, 'apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(child(path, 'kind'), asString(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(b: KubeObject, namespaced: boolean): ErrorList {
  const errs = validateObjectMeta(b.metadata, namespaced, validateRBACName);
  const ref = isObject(b.roleRef) ? b.roleRef : {};
  if (asString(ref.apiGroup) !== RBAC_GROUP)
    errs.push(notSupported('roleRef.apiGroup', asString(ref.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(asString(ref.kind))) errs.push(notSupported('roleRef.kind', asString(ref.kind), kinds));
  const refName = asString(ref.name);
  if (refName === '') errs.push(required('roleRef.name'));
  else errs.push(...fromMessages('roleRef.name', refName, validateRBACName(refName)));
  objects(b.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, index('subjects', i))));
  return errs;
}

/** Validates a RoleBinding. */
export const validateRoleBinding = (b: KubeObject): ErrorList => validateBinding(b, true);
/** Validates a ClusterRoleBinding. */
export const validateClusterRoleBinding = (b: KubeObject): ErrorList => validateBinding(b, false);

function validateBindingUpdate(b: KubeObject, old: KubeObject, namespaced: boolean): ErrorList {
  const errs = [
    ...validateObjectMetaUpdate(b.metadata, old.metadata),
    ...validateBinding(b, namespaced).filter((e) => !e.field.startsWith('metadata.')),
  ];
  const ref = isObject(b.roleRef) ? b.roleRef : {};
  const oldRef = isObject(old.roleRef) ? old.roleRef : {};
  if (
    asString(ref.apiGroup) !== asString(oldRef.apiGroup) ||
    asString(ref.kind) !== asString(oldRef.kind) ||
    asString(ref.name) !== asString(oldRef.name)
  ) {
    errs.push(
      invalidValue(
        'roleRef',
        { apiGroup: asString(ref.apiGroup), kind: asString(ref.kind), name: asString(ref.name) },
        'cannot change roleRef',
      ),
    );
  }
  return errs;
}

/** A RoleBinding update: as on create, and the roleRef may not change (upstream: "cannot change roleRef"). */
export const validateRoleBindingUpdate = (b: KubeObject, old: KubeObject): ErrorList =>
  validateBindingUpdate(b, old, true);
/** A ClusterRoleBinding update: as on create, and the roleRef may not change. */
export const validateClusterRoleBindingUpdate = (b: KubeObject, old: KubeObject): ErrorList =>
  validateBindingUpdate(b, old, false);
