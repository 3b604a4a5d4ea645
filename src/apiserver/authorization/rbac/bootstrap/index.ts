// The bootstrap policy's objects: upstream's cluster, controller and namespaced roles and bindings, and kubeadm's.
export { CLUSTER_ROLES } from './cluster_roles.js';
export {
  CLUSTER_ROLE_BINDINGS,
  KUBEADM_CLUSTER_ADMINS_GROUP,
  KUBEADM_CLUSTER_ROLE_BINDINGS,
  KUBEADM_CLUSTER_ROLES,
  KUBEADM_NODE_BOOTSTRAP_TOKEN_GROUP,
} from './cluster_role_bindings.js';
export { CONTROLLER_CLUSTER_ROLE_BINDINGS, CONTROLLER_CLUSTER_ROLES } from './controller_roles.js';
export { NAMESPACE_ROLE_BINDINGS, NAMESPACE_ROLES } from './namespace_roles.js';
export {
  AUTOUPDATE_ANNOTATION,
  aggregatedClusterRole,
  clusterRole,
  clusterRoleBinding,
  role,
  roleBinding,
  rule,
  urlRule,
  type Obj,
} from './objects.js';
