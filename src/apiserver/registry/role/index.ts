/** Roles (rbac.authorization.k8s.io/v1): the scheme's defaulting and validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';
import { roleTable } from './table.js';

/** The roles registry entry. */
export const roles: ResourceDefinition = {
  group: 'rbac.authorization.k8s.io',
  resource: 'roles',
  table: roleTable,
  strategy: (info) => genericStrategy(info),
};
