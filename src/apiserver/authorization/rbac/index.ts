// RBAC: rule matching, the authorizer over its informers, and upstream's bootstrap policy.
export { RBACAuthorizer } from './rbac_authorizer.js';
export { ruleAllows, type Rule } from './rules.js';
export {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
  reconcile,
} from './bootstrap_policy.js';
export {
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  roleEscalationAuthorized,
} from './escalation_check.js';
