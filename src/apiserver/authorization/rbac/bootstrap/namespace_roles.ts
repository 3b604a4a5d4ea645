/**
 * Upstream's namespaced bootstrap Roles and RoleBindings (bootstrappolicy/namespace_policy.go):
 * reading the extension-apiserver-authentication ConfigMap, the components' leader-election
 * Leases, and the bootstrap-signer and token-cleaner controllers' Secrets and cluster-info.
 */
import { EVENTS_RULE, role, roleBinding, rule, type Obj } from './objects.js';

const SYSTEM = 'kube-system';
const PUBLIC = 'kube-public';
const READ = ['get', 'list', 'watch'];
const LEASE_VERBS = ['create', 'get', 'list', 'update', 'watch'];
const leaderLocking = [
  rule(LEASE_VERBS, ['coordination.k8s.io'], ['leases']),
  rule(LEASE_VERBS, ['coordination.k8s.io'], ['leasecandidates']),
];

/** The Roles, namespace by namespace. */
export const NAMESPACE_ROLES: readonly Obj[] = [
  role(SYSTEM, 'extension-apiserver-authentication-reader', [
    rule(READ, [''], ['configmaps'], ['extension-apiserver-authentication']),
  ]),
  role(SYSTEM, 'system::leader-locking-kube-controller-manager', leaderLocking),
  role(SYSTEM, 'system::leader-locking-kube-scheduler', leaderLocking),
  role(SYSTEM, 'system:controller:bootstrap-signer', [rule(READ, [''], ['secrets'])]),
  role(SYSTEM, 'system:controller:token-cleaner', [
    rule(['delete', 'get', 'list', 'watch'], [''], ['secrets']),
    EVENTS_RULE,
  ]),
  role(PUBLIC, 'system:controller:bootstrap-signer', [
    rule(READ, [''], ['configmaps']),
    rule(['update'], [''], ['configmaps'], ['cluster-info']),
    EVENTS_RULE,
  ]),
];

/** The RoleBindings. */
export const NAMESPACE_ROLE_BINDINGS: readonly Obj[] = [
  roleBinding(
    SYSTEM,
    'system::extension-apiserver-authentication-reader',
    'extension-apiserver-authentication-reader',
    [{ user: 'system:kube-controller-manager' }, { user: 'system:kube-scheduler' }],
  ),
  roleBinding(
    SYSTEM,
    'system::leader-locking-kube-controller-manager',
    'system::leader-locking-kube-controller-manager',
    [
      { user: 'system:kube-controller-manager' },
      { serviceAccount: `${SYSTEM}/kube-controller-manager` },
      { serviceAccount: `${SYSTEM}/leader-election-controller` },
    ],
  ),
  roleBinding(SYSTEM, 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [
    { user: 'system:kube-scheduler' },
    { serviceAccount: `${SYSTEM}/kube-scheduler` },
  ]),
  roleBinding(SYSTEM, 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [
    { serviceAccount: `${SYSTEM}/bootstrap-signer` },
  ]),
  roleBinding(SYSTEM, 'system:controller:token-cleaner', 'system:controller:token-cleaner', [
    { serviceAccount: `${SYSTEM}/token-cleaner` },
  ]),
  roleBinding(PUBLIC, 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [
    { serviceAccount: `${SYSTEM}/bootstrap-signer` },
  ]),
];
