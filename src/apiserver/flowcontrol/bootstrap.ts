/**
 * Upstream's bootstrap API Priority and Fairness configuration
 * (apiserver/pkg/apis/flowcontrol/bootstrap/default.go): the mandatory
 * exempt and catch-all levels and schemas, and the suggested ones that keep
 * node heartbeats, leader election and controllers ahead of other traffic.
 */
import type { FlowSchema, FlowSubject, PolicyRulesWithSubjects, PriorityLevelConfiguration } from '../../api/index.js';

/** The annotation that says whether the server keeps a bootstrap object's spec up to date. */
export const AUTOUPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

function level(name: string, shares: number, lendable: number, queuing?: [number, number]): PriorityLevelConfiguration {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: shares,
        lendablePercent: lendable,
        limitResponse:
          queuing === undefined
            ? { type: 'Reject' }
            : { type: 'Queue', queuing: { queues: queuing[0], handSize: queuing[1], queueLengthLimit: 50 } },
      },
    },
  };
}

function schema(
  name: string,
  pl: string,
  precedence: number,
  distinguisher: string | undefined,
  rules: PolicyRulesWithSubjects,
): FlowSchema {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: pl },
      matchingPrecedence: precedence,
      ...(distinguisher === undefined ? {} : { distinguisherMethod: { type: distinguisher } }),
      rules: [rules],
    },
  };
}

const groups = (...names: string[]): FlowSubject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): FlowSubject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemSA = (name: string): FlowSubject => ({
  kind: 'ServiceAccount',
  serviceAccount: { namespace: 'kube-system', name },
});

/** Every verb on every resource, cluster-scoped or in any namespace, and every non-resource URL. */
function everything(subjects: FlowSubject[]): PolicyRulesWithSubjects {
  return {
    subjects,
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  };
}

const EVERYONE = ['system:unauthenticated', 'system:authenticated'];
const LEADER_VERBS = ['get', 'create', 'update'];

/** The mandatory priority levels: always present, their specs always restored. */
export const MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'exempt' },
    spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  },
  level('catch-all', 5, 0),
];

/** The mandatory FlowSchemas: system:masters is exempt; everything else at least reaches catch-all. */
export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  schema('exempt', 'exempt', 1, undefined, everything(groups('system:masters'))),
  schema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups(...EVERYONE))),
];

/** The suggested priority levels, kept up to date unless their autoupdate annotation is "false". */
export const SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  level('system', 30, 33, [64, 6]),
  level('node-high', 40, 25, [64, 6]),
  level('leader-election', 10, 0, [16, 4]),
  level('workload-high', 40, 50, [128, 6]),
  level('workload-low', 100, 90, [128, 6]),
  level('global-default', 20, 50, [128, 6]),
];

/** The suggested FlowSchemas. */
export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  schema('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  schema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [
      { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
      { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
    ],
  }),
  schema('probes', 'exempt', 2, undefined, {
    subjects: groups(...EVERYONE),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  schema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), kubeSystemSA('*')],
    resourceRules: [
      { verbs: LEADER_VERBS, apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['kube-system'] },
      { verbs: LEADER_VERBS, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
    ],
  }),
  schema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users('system:kube-controller-manager'), kubeSystemSA('endpoint-controller')],
    resourceRules: [{ verbs: LEADER_VERBS, apiGroups: [''], resources: ['endpoints'], namespaces: ['*'] }],
  }),
  schema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: [kubeSystemSA('*')],
    resourceRules: [
      { verbs: LEADER_VERBS, apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['*'] },
      { verbs: LEADER_VERBS, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
    ],
  }),
  schema(
    'kube-controller-manager',
    'workload-high',
    800,
    'ByNamespace',
    everything(users('system:kube-controller-manager')),
  ),
  schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
  schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything([kubeSystemSA('*')])),
  schema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  schema('global-default', 'global-default', 9900, 'ByUser', everything(groups(...EVERYONE))),
];

/** Whether `name` is a mandatory bootstrap object (both kinds use the same two names). */
export function isMandatory(name: string): boolean {
  return name === 'exempt' || name === 'catch-all';
}
