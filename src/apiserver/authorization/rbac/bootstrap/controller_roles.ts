/**
 * Upstream's `system:controller:*` ClusterRoles (bootstrappolicy/controller_policy.go), one per
 * controller identity that kube-controller-manager uses with --use-service-account-credentials,
 * each bound to the ServiceAccount kube-system/<name>. Only the controllers kscale runs or is
 * adding are here; the rules are upstream's.
 */
import type { Rule } from '../rules.js';
import { clusterRole, clusterRoleBinding, EVENTS_RULE, rule, type Obj } from './objects.js';

const READ = ['get', 'list', 'watch'];
const ALL = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** Controller name (the ServiceAccount's name) to its rules. */
const CONTROLLERS: [string, Rule[]][] = [
  [
    'certificate-controller',
    [
      rule(['delete', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      rule(
        ['update'],
        ['certificates.k8s.io'],
        ['certificatesigningrequests/approval', 'certificatesigningrequests/status'],
      ),
      rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
      rule(
        ['sign'],
        ['certificates.k8s.io'],
        ['signers'],
        [
          'kubernetes.io/kube-apiserver-client',
          'kubernetes.io/kube-apiserver-client-kubelet',
          'kubernetes.io/kubelet-serving',
          'kubernetes.io/legacy-unknown',
        ],
      ),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      EVENTS_RULE,
    ],
  ],
  [
    'clusterrole-aggregation-controller',
    [rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], ['rbac.authorization.k8s.io'], ['clusterroles'])],
  ],
  [
    'cronjob-controller',
    [
      rule(['get', 'list', 'update', 'watch'], ['batch'], ['cronjobs']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['cronjobs/status']),
      rule(['update'], ['batch'], ['cronjobs/finalizers']),
      rule(['delete', 'list'], [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'daemon-set-controller',
    [
      rule(READ, ['apps', 'extensions'], ['daemonsets']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/status']),
      rule(['update'], ['apps', 'extensions'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(ALL, ['apps'], ['controllerrevisions']),
      EVENTS_RULE,
    ],
  ],
  [
    'deployment-controller',
    [
      rule(['get', 'list', 'update', 'watch'], ['apps', 'extensions'], ['deployments']),
      rule(['update'], ['apps', 'extensions'], ['deployments/status']),
      rule(['update'], ['apps', 'extensions'], ['deployments/finalizers']),
      rule(ALL, ['apps', 'extensions'], ['replicasets']),
      rule(['get', 'list', 'update', 'watch'], [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'disruption-controller',
    [
      rule(READ, ['apps', 'extensions'], ['deployments']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, [''], ['replicationcontrollers']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
      EVENTS_RULE,
    ],
  ],
  [
    'endpoint-controller',
    [
      rule(READ, [''], ['pods', 'services']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['endpoints']),
      rule(['create'], [''], ['endpoints/restricted']),
      EVENTS_RULE,
    ],
  ],
  [
    'endpointslice-controller',
    [
      rule(READ, [''], ['nodes', 'pods', 'services']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
      EVENTS_RULE,
    ],
  ],
  [
    'generic-garbage-collector',
    [rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], ['*'], ['*']), EVENTS_RULE],
  ],
  // kscale's own: the hollow provisioner stands in for an external provisioner, whose RBAC (external-provisioner's
  // ClusterRole) it follows: volumes created and deleted, claims and classes read, events.
  [
    'hollow-provisioner',
    [
      rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['persistentvolumes']),
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      EVENTS_RULE,
    ],
  ],
  [
    'job-controller',
    [
      rule(['get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
      rule(['update'], ['batch'], ['jobs/status']),
      rule(['update'], ['batch'], ['jobs/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'namespace-controller',
    [
      rule(['delete', 'get', 'list', 'watch'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['delete', 'deletecollection', 'get', 'list', 'watch'], ['*'], ['*']),
    ],
  ],
  [
    'node-controller',
    [
      rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'persistent-volume-binder',
    [
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['pods']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'list'], [''], ['nodes']),
      EVENTS_RULE,
    ],
  ],
  [
    'pod-garbage-collector',
    [
      rule(['delete', 'list', 'watch'], [''], ['pods']),
      rule(READ, [''], ['nodes']),
      rule(['patch'], [''], ['pods/status']),
    ],
  ],
  ['pv-protection-controller', [rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumes']), EVENTS_RULE]],
  [
    'pvc-protection-controller',
    [
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(READ, [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'replicaset-controller',
    [
      rule(['get', 'list', 'update', 'watch'], ['apps', 'extensions'], ['replicasets']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/status']),
      rule(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'replication-controller',
    [
      rule(['get', 'list', 'update', 'watch'], [''], ['replicationcontrollers']),
      rule(['update'], [''], ['replicationcontrollers/status']),
      rule(['update'], [''], ['replicationcontrollers/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'patch', 'watch'], [''], ['pods']),
      EVENTS_RULE,
    ],
  ],
  [
    'resourcequota-controller',
    [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), EVENTS_RULE],
  ],
  ['root-ca-cert-publisher', [rule(['create', 'update'], [''], ['configmaps']), EVENTS_RULE]],
  ['service-account-controller', [rule(['create'], [''], ['serviceaccounts']), EVENTS_RULE]],
  [
    'statefulset-controller',
    [
      rule(['list', 'watch'], [''], ['pods']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status']),
      rule(['update'], ['apps'], ['statefulsets/finalizers']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [''], ['pods']),
      rule(ALL, ['apps'], ['controllerrevisions']),
      rule(['create', 'get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['delete', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['pods/finalizers']),
      EVENTS_RULE,
    ],
  ],
  ['ttl-after-finished-controller', [rule(['delete', 'get', 'list', 'watch'], ['batch'], ['jobs']), EVENTS_RULE]],
];

const PREFIX = 'system:controller:';

/** The controllers' ClusterRoles. */
export const CONTROLLER_CLUSTER_ROLES: readonly Obj[] = CONTROLLERS.map(([name, rules]) =>
  clusterRole(PREFIX + name, rules),
);

/** Each controller's ClusterRole bound to its ServiceAccount kube-system/<name>. */
export const CONTROLLER_CLUSTER_ROLE_BINDINGS: readonly Obj[] = CONTROLLERS.map(([name]) =>
  clusterRoleBinding(PREFIX + name, PREFIX + name, [{ serviceAccount: `kube-system/${name}` }]),
);
