/** rbac.authorization.k8s.io/v1 definitions: Roles, ClusterRoles and their bindings. Every list is atomic, as upstream marks them. */
import type { StructDesc } from './dsl.js';

const top = (fields: StructDesc): StructDesc => ({
  apiVersion: 'string',
  kind: 'string',
  metadata: 'meta.ObjectMeta',
  ...fields,
});

/** rbac/v1 definitions by short name. */
export const RBAC_DEFS: Record<string, StructDesc> = {
  'rbac.PolicyRule': {
    verbs: '[]string',
    apiGroups: '[]string',
    resources: '[]string',
    resourceNames: '[]string',
    nonResourceURLs: '[]string',
  },
  'rbac.AggregationRule': { clusterRoleSelectors: '[]meta.LabelSelector' },
  'rbac.Role': top({ rules: '[]rbac.PolicyRule' }),
  'rbac.ClusterRole': top({ rules: '[]rbac.PolicyRule', aggregationRule: 'rbac.AggregationRule' }),
  'rbac.Subject': { kind: 'string', apiGroup: 'string', name: 'string', namespace: 'string' },
  'rbac.RoleRef': { apiGroup: 'string', kind: 'string', name: 'string' },
  'rbac.RoleBinding': top({ subjects: '[]rbac.Subject', roleRef: 'rbac.RoleRef' }),
  'rbac.ClusterRoleBinding': top({ subjects: '[]rbac.Subject', roleRef: 'rbac.RoleRef' }),
};
