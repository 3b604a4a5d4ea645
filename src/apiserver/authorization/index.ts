// Authorization: the authorizer interface, its union, RBAC and the self-review endpoint.
export {
  alwaysAllow,
  forbiddenMessage,
  privilegedGroups,
  union,
  NO_OPINION,
  type Attributes,
  type Authorizer,
  type Decision,
} from './authorizer.js';
export {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  RBACAuthorizer,
  reconcile,
  ruleAllows,
  type Rule,
} from './rbac/index.js';
export { attributesOf } from './attributes.js';
export { serveSelfSubjectAccessReview } from './selfsubjectaccessreview.js';
