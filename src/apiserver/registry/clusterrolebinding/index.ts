/** ClusterRoleBindings (rbac.authorization.k8s.io/v1): the scheme's defaulting and validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { roleBindingTable } from '../rolebinding/table.js';

/** The clusterrolebindings registry entry. */
export const clusterRoleBindings: ResourceDefinition = {
  group: 'rbac.authorization.k8s.io',
  resource: 'clusterrolebindings',
  table: roleBindingTable,
  strategy: (info) => genericStrategy(info),
};
