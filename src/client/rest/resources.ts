/** GroupVersionResources of the built-in types the control plane's components use. */
import type { GroupVersionResource } from './resource.js';

const core = (resource: string, namespaced = true): GroupVersionResource => ({
  group: '',
  version: 'v1',
  resource,
  namespaced,
});
const gv = (group: string, version: string, resource: string, namespaced = true): GroupVersionResource => ({
  group,
  version,
  resource,
  namespaced,
});

/** Well-known resources, keyed like `kubectl api-resources` names. */
export const RESOURCES = {
  pods: core('pods'),
  nodes: core('nodes', false),
  namespaces: core('namespaces', false),
  services: core('services'),
  endpoints: core('endpoints'),
  events: core('events'),
  configmaps: core('configmaps'),
  secrets: core('secrets'),
  serviceaccounts: core('serviceaccounts'),
  leases: gv('coordination.k8s.io', 'v1', 'leases'),
  endpointslices: gv('discovery.k8s.io', 'v1', 'endpointslices'),
  deployments: gv('apps', 'v1', 'deployments'),
  replicasets: gv('apps', 'v1', 'replicasets'),
  statefulsets: gv('apps', 'v1', 'statefulsets'),
  daemonsets: gv('apps', 'v1', 'daemonsets'),
  controllerrevisions: gv('apps', 'v1', 'controllerrevisions'),
  replicationcontrollers: core('replicationcontrollers'),
  jobs: gv('batch', 'v1', 'jobs'),
  cronjobs: gv('batch', 'v1', 'cronjobs'),
  poddisruptionbudgets: gv('policy', 'v1', 'poddisruptionbudgets'),
  certificatesigningrequests: gv('certificates.k8s.io', 'v1', 'certificatesigningrequests', false),
  clusterroles: gv('rbac.authorization.k8s.io', 'v1', 'clusterroles', false),
  persistentvolumes: core('persistentvolumes', false),
  persistentvolumeclaims: core('persistentvolumeclaims'),
  storageclasses: gv('storage.k8s.io', 'v1', 'storageclasses', false),
  tokenreviews: gv('authentication.k8s.io', 'v1', 'tokenreviews', false),
  subjectaccessreviews: gv('authorization.k8s.io', 'v1', 'subjectaccessreviews', false),
} as const satisfies Record<string, GroupVersionResource>;
