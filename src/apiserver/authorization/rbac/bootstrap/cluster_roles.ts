/**
 * Upstream's bootstrap ClusterRoles (bootstrappolicy/policy.go, ClusterRoles()): the user-facing
 * aggregated roles admin, edit and view with the system:aggregate-to-* roles they gather, and the
 * roles of the control-plane components. system:node lives in its own file (the Node authorizer's).
 */
import type { Rule } from '../rules.js';
import { aggregatedClusterRole, clusterRole, EVENTS_RULE, rule, urlRule, type Obj } from './objects.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

// What view may read: everything but secrets and the escalating subresources.
const VIEW_RULES: Rule[] = [
  rule(
    READ,
    [''],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
    ],
  ),
  rule(
    READ,
    [''],
    [
      'bindings',
      'events',
      'limitranges',
      'namespaces/status',
      'pods/log',
      'pods/status',
      'replicationcontrollers/status',
      'resourcequotas',
      'resourcequotas/status',
    ],
  ),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(
    READ,
    ['apps'],
    [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
  ),
  rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(
    READ,
    ['extensions'],
    [
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'ingresses',
      'ingresses/status',
      'networkpolicies',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'replicationcontrollers/scale',
    ],
  ),
  rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

// What edit adds: writes of workloads, secrets and the pod subresources, impersonating ServiceAccounts.
const EDIT_RULES: Rule[] = [
  rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(
    WRITE,
    [''],
    [
      'configmaps',
      'events',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'secrets',
      'serviceaccounts',
      'services',
      'services/proxy',
    ],
  ),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(
    WRITE,
    ['apps'],
    [
      'daemonsets',
      'deployments',
      'deployments/rollback',
      'deployments/scale',
      'replicasets',
      'replicasets/scale',
      'statefulsets',
      'statefulsets/scale',
    ],
  ),
  rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
  rule(
    WRITE,
    ['extensions'],
    [
      'daemonsets',
      'deployments',
      'deployments/rollback',
      'deployments/scale',
      'ingresses',
      'networkpolicies',
      'replicasets',
      'replicasets/scale',
      'replicationcontrollers/scale',
    ],
  ),
  rule(WRITE, ['policy'], ['poddisruptionbudgets']),
  rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
];

// What admin adds: the namespace's own RBAC, and asking who may do what there.
const ADMIN_RULES: Rule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule(READ_WRITE, ['rbac.authorization.k8s.io'], ['rolebindings', 'roles']),
];

const LEADER_ELECTION = (name: string): Rule[] => [
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], [name]),
];

const approver = (signer: string): Rule[] => [
  rule(['approve'], ['certificates.k8s.io'], ['signers'], [`kubernetes.io/${signer}`]),
];

/** The ClusterRoles, in upstream's order. */
export const CLUSTER_ROLES: readonly Obj[] = [
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
  clusterRole('system:discovery', [
    urlRule(
      ['get'],
      [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/healthz',
        '/livez',
        '/openapi',
        '/openapi/*',
        '/readyz',
        '/version',
        '/version/',
      ],
    ),
  ]),
  clusterRole('system:monitoring', [
    urlRule(
      ['get'],
      ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'],
    ),
  ]),
  clusterRole('system:basic-user', [
    rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ]),
  clusterRole('system:public-info-viewer', [
    urlRule(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/']),
  ]),
  aggregatedClusterRole('admin', TO_ADMIN),
  aggregatedClusterRole('edit', TO_EDIT, { [TO_ADMIN]: 'true' }),
  aggregatedClusterRole('view', TO_VIEW, { [TO_EDIT]: 'true' }),
  clusterRole('system:aggregate-to-admin', ADMIN_RULES, { [TO_ADMIN]: 'true' }),
  clusterRole('system:aggregate-to-edit', EDIT_RULES, { [TO_EDIT]: 'true' }),
  clusterRole('system:aggregate-to-view', VIEW_RULES, { [TO_VIEW]: 'true' }),
  clusterRole('system:heapster', [
    rule(READ, [''], ['events', 'namespaces', 'nodes', 'pods']),
    rule(READ, ['extensions'], ['deployments']),
  ]),
  clusterRole('system:node-problem-detector', [
    rule(['get'], [''], ['nodes']),
    rule(['patch'], [''], ['nodes/status']),
    EVENTS_RULE,
  ]),
  clusterRole('system:node-proxier', [
    rule(['list', 'watch'], [''], ['endpoints', 'services']),
    rule(READ, [''], ['nodes']),
    EVENTS_RULE,
    rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
  ]),
  clusterRole('system:kubelet-api-admin', [
    rule(READ, [''], ['nodes']),
    rule(['proxy'], [''], ['nodes']),
    rule(['*'], [''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats']),
  ]),
  clusterRole('system:node-bootstrapper', [
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  ]),
  clusterRole('system:auth-delegator', [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  ]),
  clusterRole('system:kube-aggregator', [rule(READ, [''], ['endpoints', 'services'])]),
  clusterRole('system:kube-controller-manager', [
    EVENTS_RULE,
    ...LEADER_ELECTION('kube-controller-manager'),
    rule(['create'], [''], ['secrets', 'serviceaccounts']),
    rule(['delete'], [''], ['secrets']),
    rule(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
    rule(['update'], [''], ['secrets', 'serviceaccounts']),
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    rule(['list', 'watch'], ['*'], ['*']),
    rule(['create'], [''], ['serviceaccounts/token']),
  ]),
  clusterRole('system:kube-dns', [rule(['list', 'watch'], [''], ['endpoints', 'services'])]),
  clusterRole('system:persistent-volume-provisioner', [
    rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['persistentvolumes']),
    rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['watch'], [''], ['events']),
    EVENTS_RULE,
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
    rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
    rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient']),
  ]),
  clusterRole('system:volume-scheduler', [
    rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
  ]),
  clusterRole('system:certificates.k8s.io:legacy-unknown-approver', approver('legacy-unknown')),
  clusterRole('system:certificates.k8s.io:kubelet-serving-approver', approver('kubelet-serving')),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', approver('kube-apiserver-client')),
  clusterRole(
    'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
    approver('kube-apiserver-client-kubelet'),
  ),
  clusterRole('system:service-account-issuer-discovery', [
    urlRule(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks']),
  ]),
  clusterRole('system:kube-scheduler', [
    EVENTS_RULE,
    ...LEADER_ELECTION('kube-scheduler'),
    rule(READ, [''], ['nodes']),
    rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
    rule(['create'], [''], ['bindings', 'pods/binding']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(READ, [''], ['replicationcontrollers', 'services']),
    rule(READ, ['apps', 'extensions'], ['replicasets']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(READ, ['policy'], ['poddisruptionbudgets']),
    rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    rule(READ, ['storage.k8s.io'], ['csinodes']),
    rule(READ, [''], ['namespaces']),
    rule(READ, ['storage.k8s.io'], ['csidrivers']),
    rule(READ, ['storage.k8s.io'], ['csistoragecapacities']),
    // kscale's scheduler also runs Coscheduling, whose PodGroups it reads and updates.
    rule(['get', 'list', 'patch', 'update', 'watch'], ['scheduling.x-k8s.io'], ['podgroups', 'podgroups/status']),
  ]),
];
