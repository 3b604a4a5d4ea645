/**
 * The scheme: one ResourceInfo per served resource, with upstream's names,
 * scope, verbs, short names, categories and subresources. The API server
 * routes, discovers and stores by this table alone.
 */

/** A subresource such as pods/status or deployments/scale. */
export interface SubresourceInfo {
  name: string;
  /** The kind the subresource accepts and returns, when it differs from the parent's group/version. */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

/** One served resource, like an APIResource plus the storage prefix. */
export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The plural name used in URLs, e.g. "pods". */
  resource: string;
  singularName: string;
  shortNames: string[];
  namespaced: boolean;
  verbs: string[];
  categories: string[];
  subresources: SubresourceInfo[];
  /** `/registry/<resource>/`; objects live at prefix + `[namespace/]name`. */
  storagePrefix: string;
  /** Served from a CustomResourceDefinition (the dynamic part of the scheme), not from SPECS. */
  custom?: boolean;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
// Namespaces have no deletecollection upstream: deleting every namespace at once is too dangerous.
const NO_COLLECTION_DELETE = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

interface Spec {
  gv: string;
  kind: string;
  resource: string;
  short?: string[];
  namespaced: boolean;
  verbs?: string[];
  categories?: string[];
  sub?: { name: string; gv?: string; kind?: string; verbs?: string[] }[];
}

const status = { name: 'status' };
const scale = { name: 'scale', gv: 'autoscaling/v1', kind: 'Scale' };

/** HorizontalPodAutoscalers, stored as autoscaling/v2 and served as v1 too. */
const hpaSpec = (gv: string): Spec => ({
  gv,
  kind: 'HorizontalPodAutoscaler',
  resource: 'horizontalpodautoscalers',
  short: ['hpa'],
  namespaced: true,
  categories: ['all'],
  sub: [status],
});

const SPECS: Spec[] = [
  {
    gv: 'v1',
    kind: 'Namespace',
    resource: 'namespaces',
    short: ['ns'],
    namespaced: false,
    verbs: NO_COLLECTION_DELETE,
    sub: [status, { name: 'finalize', verbs: ['update'] }],
  },
  { gv: 'v1', kind: 'Node', resource: 'nodes', short: ['no'], namespaced: false, sub: [status] },
  {
    gv: 'v1',
    kind: 'Pod',
    resource: 'pods',
    short: ['po'],
    namespaced: true,
    categories: ['all'],
    sub: [
      status,
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'eviction', gv: 'policy/v1', kind: 'Eviction', verbs: ['create'] },
      { name: 'log', verbs: ['get'] },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      // In-place resize of the containers' resources (upstream 1.33, InPlacePodVerticalScaling beta, on by default).
      { name: 'resize' },
    ],
  },
  {
    gv: 'v1',
    kind: 'Service',
    resource: 'services',
    short: ['svc'],
    namespaced: true,
    categories: ['all'],
    sub: [status],
  },
  {
    gv: 'v1',
    kind: 'ReplicationController',
    resource: 'replicationcontrollers',
    short: ['rc'],
    namespaced: true,
    categories: ['all'],
    sub: [status, scale],
  },
  { gv: 'v1', kind: 'Endpoints', resource: 'endpoints', short: ['ep'], namespaced: true },
  { gv: 'v1', kind: 'Event', resource: 'events', short: ['ev'], namespaced: true },
  { gv: 'v1', kind: 'ConfigMap', resource: 'configmaps', short: ['cm'], namespaced: true },
  { gv: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true },
  { gv: 'v1', kind: 'ResourceQuota', resource: 'resourcequotas', short: ['quota'], namespaced: true, sub: [status] },
  { gv: 'v1', kind: 'LimitRange', resource: 'limitranges', short: ['limits'], namespaced: true },
  {
    gv: 'v1',
    kind: 'ServiceAccount',
    resource: 'serviceaccounts',
    short: ['sa'],
    namespaced: true,
    sub: [{ name: 'token', gv: 'authentication.k8s.io/v1', kind: 'TokenRequest', verbs: ['create'] }],
  },
  { gv: 'coordination.k8s.io/v1', kind: 'Lease', resource: 'leases', namespaced: true },
  { gv: 'discovery.k8s.io/v1', kind: 'EndpointSlice', resource: 'endpointslices', namespaced: true },
  {
    gv: 'apps/v1',
    kind: 'Deployment',
    resource: 'deployments',
    short: ['deploy'],
    namespaced: true,
    categories: ['all'],
    sub: [status, scale],
  },
  {
    gv: 'apps/v1',
    kind: 'ReplicaSet',
    resource: 'replicasets',
    short: ['rs'],
    namespaced: true,
    categories: ['all'],
    sub: [status, scale],
  },
  {
    gv: 'apps/v1',
    kind: 'StatefulSet',
    resource: 'statefulsets',
    short: ['sts'],
    namespaced: true,
    categories: ['all'],
    sub: [status, scale],
  },
  {
    gv: 'apps/v1',
    kind: 'DaemonSet',
    resource: 'daemonsets',
    short: ['ds'],
    namespaced: true,
    categories: ['all'],
    sub: [status],
  },
  { gv: 'apps/v1', kind: 'ControllerRevision', resource: 'controllerrevisions', namespaced: true },
  { gv: 'batch/v1', kind: 'Job', resource: 'jobs', namespaced: true, categories: ['all'], sub: [status] },
  {
    gv: 'batch/v1',
    kind: 'CronJob',
    resource: 'cronjobs',
    short: ['cj'],
    namespaced: true,
    categories: ['all'],
    sub: [status],
  },
  hpaSpec('autoscaling/v2'),
  {
    gv: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    resource: 'networkpolicies',
    short: ['netpol'],
    namespaced: true,
  },
  { gv: 'scheduling.k8s.io/v1', kind: 'PriorityClass', resource: 'priorityclasses', short: ['pc'], namespaced: false },
  { gv: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', resource: 'clusterroles', namespaced: false },
  {
    gv: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    resource: 'clusterrolebindings',
    namespaced: false,
  },
  { gv: 'rbac.authorization.k8s.io/v1', kind: 'Role', resource: 'roles', namespaced: true },
  { gv: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', resource: 'rolebindings', namespaced: true },
  {
    gv: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    resource: 'certificatesigningrequests',
    short: ['csr'],
    namespaced: false,
    sub: [status, { name: 'approval' }],
  },
  {
    gv: 'policy/v1',
    kind: 'PodDisruptionBudget',
    resource: 'poddisruptionbudgets',
    short: ['pdb'],
    namespaced: true,
    sub: [status],
  },
  {
    gv: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    resource: 'flowschemas',
    namespaced: false,
    sub: [status],
  },
  {
    gv: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    resource: 'prioritylevelconfigurations',
    namespaced: false,
    sub: [status],
  },
  {
    gv: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    resource: 'customresourcedefinitions',
    short: ['crd', 'crds'],
    namespaced: false,
    categories: ['api-extensions'],
    sub: [status],
  },
  // scheduler-plugins' gang scheduling group (Coscheduling), served natively so the scheduler needs no CRD.
  {
    gv: 'scheduling.x-k8s.io/v1alpha1',
    kind: 'PodGroup',
    resource: 'podgroups',
    short: ['pg', 'pgs'],
    namespaced: true,
    sub: [status],
  },
  {
    gv: 'v1',
    kind: 'PersistentVolume',
    resource: 'persistentvolumes',
    short: ['pv'],
    namespaced: false,
    sub: [status],
  },
  {
    gv: 'v1',
    kind: 'PersistentVolumeClaim',
    resource: 'persistentvolumeclaims',
    short: ['pvc'],
    namespaced: true,
    sub: [status],
  },
  { gv: 'storage.k8s.io/v1', kind: 'StorageClass', resource: 'storageclasses', short: ['sc'], namespaced: false },
];

// Create-only virtual resources: the reviews, answered by the server and never stored; discovery lists them.
const REVIEW = { namespaced: false, verbs: ['create'] };
const REVIEW_SPECS: Spec[] = [
  { gv: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', resource: 'selfsubjectreviews', ...REVIEW },
  { gv: 'authentication.k8s.io/v1', kind: 'TokenReview', resource: 'tokenreviews', ...REVIEW },
  {
    gv: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    resource: 'localsubjectaccessreviews',
    ...REVIEW,
    namespaced: true,
  },
  { gv: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', ...REVIEW },
  { gv: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', ...REVIEW },
  { gv: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', ...REVIEW },
];

/** Splits "apps/v1" into group "apps", version "v1"; "v1" is the core group "". */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Joins a group and version into an apiVersion ("v1", "apps/v1"). */
export const groupVersionString = (group: string, version: string): string => (group ? `${group}/${version}` : version);

function build(s: Spec): ResourceInfo {
  const { group, version } = parseGroupVersion(s.gv);
  return {
    group,
    version,
    kind: s.kind,
    listKind: `${s.kind}List`,
    resource: s.resource,
    singularName: s.kind.toLowerCase(),
    shortNames: s.short ?? [],
    namespaced: s.namespaced,
    verbs: s.verbs ?? ALL_VERBS,
    categories: s.categories ?? [],
    subresources: (s.sub ?? []).map((sub) => {
      const gv = sub.gv ? parseGroupVersion(sub.gv) : { group, version };
      return {
        name: sub.name,
        group: gv.group,
        version: gv.version,
        kind: sub.kind ?? s.kind,
        verbs: sub.verbs ?? STATUS_VERBS,
      };
    }),
    storagePrefix: `/registry/${s.resource}/`,
  };
}

/** Every served resource, in discovery order. */
export const RESOURCES: readonly ResourceInfo[] = Object.freeze(SPECS.map(build));

/**
 * Served versions that are not the storage version, as upstream serves autoscaling/v1 beside the stored
 * autoscaling/v2: each shares its stored resource's storagePrefix, and the API server converts on the way to and
 * from storage. RESOURCES (the storage and RBAC view) does not list them; lookupResource and resourceForKind do.
 */
export const CONVERTED_RESOURCES: readonly ResourceInfo[] = Object.freeze([hpaSpec('autoscaling/v1')].map(build));

/** The create-only review resources: served by their own handlers, in discovery, with no storage. */
export const VIRTUAL_RESOURCES: readonly ResourceInfo[] = Object.freeze(REVIEW_SPECS.map(build));

const byGVR = new Map<string, ResourceInfo>();
const byGVK = new Map<string, ResourceInfo>();
const byGroupResource = new Map<string, ResourceInfo>();
for (const r of RESOURCES) {
  byGVR.set(`${r.group}/${r.version}/${r.resource}`, r);
  byGVK.set(`${groupVersionString(r.group, r.version)}/${r.kind}`, r);
  byGroupResource.set(`${r.group}/${r.resource}`, r);
}
for (const r of CONVERTED_RESOURCES) {
  byGVR.set(`${r.group}/${r.version}/${r.resource}`, r);
  byGVK.set(`${groupVersionString(r.group, r.version)}/${r.kind}`, r);
}

/** The resource served at /api[s]/<group>/<version>/<resource>, or undefined. */
export function lookupResource(group: string, version: string, resource: string): ResourceInfo | undefined {
  return byGVR.get(`${group}/${version}/${resource}`);
}

/** The resource for an object's apiVersion and kind, or undefined. */
export function resourceForKind(apiVersion: string, kind: string): ResourceInfo | undefined {
  return byGVK.get(`${apiVersion}/${kind}`);
}

/** The resource for a group and plural name in any version (the storage and RBAC view). */
export function resourceForGroupResource(group: string, resource: string): ResourceInfo | undefined {
  return byGroupResource.get(`${group}/${resource}`);
}

/** Resolves what a user typed (plural, singular, short name or kind, optionally "name.group"), like kubectl's RESTMapper. */
export function resolveResourceName(name: string): ResourceInfo | undefined {
  const dot = name.indexOf('.');
  const base = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
  const group = dot < 0 ? undefined : name.slice(dot + 1);
  return RESOURCES.find(
    (r) =>
      (group === undefined || r.group === group) &&
      (r.resource === base || r.singularName === base || r.shortNames.includes(base) || r.kind.toLowerCase() === base),
  );
}

/** The storage key of an object: `/registry/<resource>/<namespace>/<name>`, without the namespace when cluster-scoped. */
export function storageKey(r: ResourceInfo, namespace: string | undefined, name: string): string {
  return r.namespaced ? `${r.storagePrefix}${namespace ?? ''}/${name}` : `${r.storagePrefix}${name}`;
}

/** The key prefix for a list: the whole resource, or one namespace of it. */
export function storageListPrefix(r: ResourceInfo, namespace?: string): string {
  return r.namespaced && namespace ? `${r.storagePrefix}${namespace}/` : r.storagePrefix;
}

/** The served group-versions, the core "v1" first, then by group in registration order. */
export function servedGroupVersions(
  resources: readonly ResourceInfo[] = RESOURCES,
): { group: string; version: string }[] {
  const seen = new Set<string>();
  const out: { group: string; version: string }[] = [];
  for (const r of resources) {
    const k = `${r.group}/${r.version}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push({ group: r.group, version: r.version });
    }
  }
  return out;
}

/** The resources of one group-version, in registration order. */
export function resourcesIn(
  group: string,
  version: string,
  resources: readonly ResourceInfo[] = RESOURCES,
): ResourceInfo[] {
  return resources.filter((r) => r.group === group && r.version === version);
}

/** What discovery lists: the stored resources, then the virtual ones. */
export const DISCOVERY_RESOURCES: readonly ResourceInfo[] = Object.freeze([
  ...RESOURCES,
  ...CONVERTED_RESOURCES,
  ...VIRTUAL_RESOURCES,
]);
