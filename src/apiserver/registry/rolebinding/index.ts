/** RoleBindings (rbac.authorization.k8s.io/v1): the scheme's defaulting and validation, nothing of their own. */
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy } from '../strategy.js';

/** The rolebindings registry entry. */
export const roleBindings: ResourceDefinition = {
  group: 'rbac.authorization.k8s.io',
  resource: 'rolebindings',
  strategy: (info) => genericStrategy(info),
};
