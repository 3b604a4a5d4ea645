/** ClusterRoles (rbac.authorization.k8s.io/v1): the scheme's defaulting and validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { roleTable } from '../role/table.js';

/** The clusterroles registry entry. */
export const clusterRoles: ResourceDefinition = {
  group: 'rbac.authorization.k8s.io',
  resource: 'clusterroles',
  table: roleTable,
  strategy: (info) => genericStrategy(info),
};
