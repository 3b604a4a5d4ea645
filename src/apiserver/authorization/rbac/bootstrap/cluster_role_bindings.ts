/**
 * The bootstrap ClusterRoleBindings: upstream's (bootstrappolicy/policy.go,
 * ClusterRoleBindings()) and those kubeadm adds at `kubeadm init`: its
 * everyday admins' group, and the node-join bindings that let a bootstrap
 * token's group request a node client certificate and nodes renew their own.
 */
import { clusterRole, clusterRoleBinding, rule, type Obj } from './objects.js';

/** The group kubeadm's default bootstrap token puts a joining node in. */
export const KUBEADM_NODE_BOOTSTRAP_TOKEN_GROUP = 'system:bootstrappers:kubeadm:default-node-token';
/** kubeadm's group of everyday cluster admins (since 1.29), bound to cluster-admin instead of system:masters. */
export const KUBEADM_CLUSTER_ADMINS_GROUP = 'kubeadm:cluster-admins';

const NODE_CLIENT = 'system:certificates.k8s.io:certificatesigningrequests:nodeclient';
const SELF_NODE_CLIENT = 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient';

/** Upstream's ClusterRoleBindings (system:node's, bound to no one, comes with the Node authorizer). */
export const CLUSTER_ROLE_BINDINGS: readonly Obj[] = [
  clusterRoleBinding('cluster-admin', 'cluster-admin', [{ group: 'system:masters' }]),
  clusterRoleBinding('system:monitoring', 'system:monitoring', [{ group: 'system:monitoring' }]),
  clusterRoleBinding('system:discovery', 'system:discovery', [{ group: 'system:authenticated' }]),
  clusterRoleBinding('system:basic-user', 'system:basic-user', [{ group: 'system:authenticated' }]),
  clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
    { group: 'system:authenticated' },
    { group: 'system:unauthenticated' },
  ]),
  clusterRoleBinding('system:node-proxier', 'system:node-proxier', [{ user: 'system:kube-proxy' }]),
  clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', [
    { user: 'system:kube-controller-manager' },
  ]),
  clusterRoleBinding('system:kube-dns', 'system:kube-dns', [{ serviceAccount: 'kube-system/kube-dns' }]),
  clusterRoleBinding('system:kube-scheduler', 'system:kube-scheduler', [{ user: 'system:kube-scheduler' }]),
  clusterRoleBinding('system:volume-scheduler', 'system:volume-scheduler', [{ user: 'system:kube-scheduler' }]),
  clusterRoleBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [
    { group: 'system:serviceaccounts' },
  ]),
];

/** The ClusterRole kubeadm adds so a joining node can read its Node. */
export const KUBEADM_CLUSTER_ROLES: readonly Obj[] = [
  clusterRole('kubeadm:get-nodes', [rule(['get'], [''], ['nodes'])]),
];

/** kubeadm's bindings (phases/bootstraptoken/node and kubeconfig's admin group). */
export const KUBEADM_CLUSTER_ROLE_BINDINGS: readonly Obj[] = [
  clusterRoleBinding('kubeadm:cluster-admins', 'cluster-admin', [{ group: KUBEADM_CLUSTER_ADMINS_GROUP }]),
  clusterRoleBinding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', [
    { group: KUBEADM_NODE_BOOTSTRAP_TOKEN_GROUP },
  ]),
  clusterRoleBinding('kubeadm:node-autoapprove-bootstrap', NODE_CLIENT, [
    { group: KUBEADM_NODE_BOOTSTRAP_TOKEN_GROUP },
  ]),
  clusterRoleBinding('kubeadm:node-autoapprove-certificate-rotation', SELF_NODE_CLIENT, [{ group: 'system:nodes' }]),
  clusterRoleBinding('kubeadm:get-nodes', 'kubeadm:get-nodes', [{ group: KUBEADM_NODE_BOOTSTRAP_TOKEN_GROUP }]),
];
