/**
 * The four RBAC kinds (rbac.authorization.k8s.io/v1): Roles, ClusterRoles
 * and their bindings, with the scheme's defaulting and validation. One folder
 * for the group, as upstream's registry/rbac holds them together.
 */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';

const GROUP = 'rbac.authorization.k8s.io';

/** The roles registry entry. */
export const roles: ResourceDefinition = { group: GROUP, resource: 'roles', strategy: (info) => genericStrategy(info) };
/** The clusterroles registry entry. */
export const clusterRoles: ResourceDefinition = {
  group: GROUP,
  resource: 'clusterroles',
  strategy: (info) => genericStrategy(info),
};
/** The rolebindings registry entry. */
export const roleBindings: ResourceDefinition = {
  group: GROUP,
  resource: 'rolebindings',
  strategy: (info) => genericStrategy(info),
};
/** The clusterrolebindings registry entry. */
export const clusterRoleBindings: ResourceDefinition = {
  group: GROUP,
  resource: 'clusterrolebindings',
  strategy: (info) => genericStrategy(info),
};
