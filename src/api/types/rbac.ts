/** rbac.authorization.k8s.io/v1: Roles, ClusterRoles and their bindings. Upstream's JSON names. */
import type { KubeObject, LabelSelector } from '../types.js';

/** rbac/v1 PolicyRule: verbs over resources (with optional names) or over non-resource URLs. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** rbac/v1 AggregationRule: the ClusterRoles whose rules make up an aggregated ClusterRole. */
export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

/** rbac/v1 Role: rules within one namespace. */
export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

/** rbac/v1 ClusterRole: rules anywhere, or the aggregation of other ClusterRoles' rules. */
export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

/** rbac/v1 Subject: a User, Group or ServiceAccount. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** rbac/v1 RoleRef: the Role or ClusterRole a binding grants. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** rbac/v1 RoleBinding: subjects granted a role in one namespace. */
export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** rbac/v1 ClusterRoleBinding: subjects granted a ClusterRole everywhere. */
export interface ClusterRoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}
