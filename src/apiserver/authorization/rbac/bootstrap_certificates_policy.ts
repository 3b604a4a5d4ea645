/**
 * The certificate roles of upstream's bootstrap policy, and the bindings
 * kubeadm makes for them (kubeadm's phases/bootstraptoken/node): a bootstrap
 * token of `system:bootstrappers:kubeadm:default-node-token` may create CSRs
 * and have node client certificates auto-approved (nodeclient), and every
 * node may renew its own (selfnodeclient). Included from bootstrap_policy.ts
 * until the full bootstrap policy (issue 23's rbacfull part) holds them.
 */
import type { Rule } from './rules.js';

type Obj = Record<string, unknown>;

const GROUP = 'rbac.authorization.k8s.io';
const CERTS = 'certificates.k8s.io';
/** The group kubeadm's default bootstrap tokens carry in auth-extra-groups. */
export const KUBEADM_NODE_TOKEN_GROUP = 'system:bootstrappers:kubeadm:default-node-token';

const role = (name: string, rules: Rule[]): Obj => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ClusterRole',
  metadata: {
    name,
    labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
    annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  },
  rules,
});
const kubeadmBinding = (name: string, roleName: string, group: string): Obj => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: roleName },
  subjects: [{ apiGroup: GROUP, kind: 'Group', name: group }],
});

/** system:node-bootstrapper and the two auto-approval roles. */
export const CERTIFICATES_CLUSTER_ROLES: readonly Obj[] = [
  role('system:node-bootstrapper', [
    { apiGroups: [CERTS], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
  ]),
  role('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
    { apiGroups: [CERTS], resources: ['certificatesigningrequests/nodeclient'], verbs: ['create'] },
  ]),
  role('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
    { apiGroups: [CERTS], resources: ['certificatesigningrequests/selfnodeclient'], verbs: ['create'] },
  ]),
];

/** kubeadm's bindings of those roles. */
export const CERTIFICATES_CLUSTER_ROLE_BINDINGS: readonly Obj[] = [
  kubeadmBinding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', KUBEADM_NODE_TOKEN_GROUP),
  kubeadmBinding(
    'kubeadm:node-autoapprove-bootstrap',
    'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    KUBEADM_NODE_TOKEN_GROUP,
  ),
  kubeadmBinding(
    'kubeadm:node-autoapprove-certificate-rotation',
    'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    'system:nodes',
  ),
];
