// Authorization: the authorizer interface, its union, RBAC, the Node authorizer and the review endpoints.
export {
  alwaysAllow,
  forbiddenError,
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
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  RBACAuthorizer,
  roleEscalationAuthorized,
  reconcile,
  ruleAllows,
  type Rule,
} from './rbac/index.js';
export {
  Graph,
  MIRROR_POD_ANNOTATION,
  NodeAuthorizer,
  nodeIdentity,
  podGraphPopulator,
  pvGraphPopulator,
  podRefs,
} from './node/index.js';
export { attributesOf } from './attributes.js';
export { serveSubjectAccessReview } from './subjectaccessreview.js';
export { serveSelfSubjectRulesReview } from './selfsubjectrulesreview.js';
