/**
 * Defaulting for every served kind, applied on create and update before
 * validation, like the generated SetDefaults_* functions upstream. Mutates
 * the object in place.
 */
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults_flowcontrol.js';
import { defaultLimitRange } from './quota/defaults.js';
import { defaultPod, defaultPodSpec } from './defaults_pod.js';
import { defaultPersistentVolume, defaultPersistentVolumeClaim, defaultStorageClass } from './defaults_storage.js';
import type { ResourceInfo } from './registry.js';
import { isObject, type KubeObject } from './types.js';

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]).filter(isObject) : []);
const spec = (o: Obj): Obj => (isObject(o.spec) ? o.spec : (o.spec = {}));
const unset = (v: unknown): boolean => v === undefined || v === null;

function defaultTemplate(s: Obj): void {
  const t = isObject(s.template) ? s.template : undefined;
  if (t) defaultPodSpec(isObject(t.spec) ? t.spec : (t.spec = {}));
}

function defaultService(svc: Obj): void {
  const s = spec(svc);
  s.sessionAffinity ||= 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  else if (s.sessionAffinity === 'ClientIP') {
    const cfg = isObject(s.sessionAffinityConfig) ? s.sessionAffinityConfig : (s.sessionAffinityConfig = {});
    const cip = isObject(cfg.clientIP) ? cfg.clientIP : (cfg.clientIP = {});
    if (unset(cip.timeoutSeconds)) cip.timeoutSeconds = 10800;
  }
  s.type ||= 'ClusterIP';
  for (const p of arr(s.ports)) {
    p.protocol ||= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const external =
    s.type === 'NodePort' || s.type === 'LoadBalancer' || (Array.isArray(s.externalIPs) && s.externalIPs.length > 0);
  if (external && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if (unset(s.internalTrafficPolicy) && ['ClusterIP', 'NodePort', 'LoadBalancer'].includes(s.type as string))
    s.internalTrafficPolicy = 'Cluster';
  if (s.type === 'LoadBalancer' && unset(s.allocateLoadBalancerNodePorts)) s.allocateLoadBalancerNodePorts = true;
  // Upstream's service REST sets the IP families while allocating; kscale is single-stack IPv4.
  if (s.type !== 'ExternalName') {
    if (unset(s.ipFamilyPolicy)) s.ipFamilyPolicy = 'SingleStack';
    if (!Array.isArray(s.ipFamilies) || !s.ipFamilies.length) s.ipFamilies = ['IPv4'];
  }
}

function defaultDeployment(d: Obj): void {
  const s = spec(d);
  if (unset(s.replicas)) s.replicas = 1;
  const strategy = isObject(s.strategy) ? s.strategy : (s.strategy = {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
    if (unset(ru.maxUnavailable)) ru.maxUnavailable = '25%';
    if (unset(ru.maxSurge)) ru.maxSurge = '25%';
  }
  if (unset(s.revisionHistoryLimit)) s.revisionHistoryLimit = 10;
  if (unset(s.progressDeadlineSeconds)) s.progressDeadlineSeconds = 600;
  defaultTemplate(s);
}

function defaultReplicaSet(rs: Obj): void {
  const s = spec(rs);
  if (unset(s.replicas)) s.replicas = 1;
  defaultTemplate(s);
}

/** SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, ten revisions of history. */
function defaultDaemonSet(ds: Obj): void {
  const s = spec(ds);
  const strategy = isObject(s.updateStrategy) ? s.updateStrategy : (s.updateStrategy = {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
    if (unset(ru.maxUnavailable)) ru.maxUnavailable = 1;
    if (unset(ru.maxSurge)) ru.maxSurge = 0;
  }
  if (unset(s.revisionHistoryLimit)) s.revisionHistoryLimit = 10;
  defaultTemplate(s);
}

/** SetDefaults_StatefulSet: OrderedReady, RollingUpdate from partition 0, claims retained, one replica. */
function defaultStatefulSet(sts: Obj): void {
  const s = spec(sts);
  s.podManagementPolicy ||= 'OrderedReady';
  const strategy = isObject(s.updateStrategy) ? s.updateStrategy : (s.updateStrategy = {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
    if (unset(ru.partition)) ru.partition = 0;
  }
  const policy = isObject(s.persistentVolumeClaimRetentionPolicy)
    ? s.persistentVolumeClaimRetentionPolicy
    : (s.persistentVolumeClaimRetentionPolicy = {});
  policy.whenDeleted ||= 'Retain';
  policy.whenScaled ||= 'Retain';
  if (unset(s.replicas)) s.replicas = 1;
  if (unset(s.revisionHistoryLimit)) s.revisionHistoryLimit = 10;
  // The claim templates get a PersistentVolumeClaim's defaults (SetDefaults_PersistentVolumeClaim and its spec).
  for (const pvc of arr(s.volumeClaimTemplates)) {
    const pspec = isObject(pvc.spec) ? pvc.spec : (pvc.spec = {});
    pspec.volumeMode ||= 'Filesystem';
    const status = isObject(pvc.status) ? pvc.status : (pvc.status = {});
    status.phase ||= 'Pending';
  }
  defaultTemplate(s);
}

/** SetDefaults_ReplicationController: selector and labels from the template's labels when unset, one replica. */
function defaultReplicationController(rc: Obj): void {
  const s = spec(rc);
  const template = isObject(s.template) ? s.template : undefined;
  const tLabels = isObject(template?.metadata) ? (template.metadata as Obj).labels : undefined;
  if (isObject(tLabels)) {
    if (!isObject(s.selector) || !Object.keys(s.selector).length) s.selector = { ...tLabels };
    const meta = (isObject(rc.metadata) ? rc.metadata : (rc.metadata = {})) as Obj;
    if (!isObject(meta.labels) || !Object.keys(meta.labels).length) meta.labels = { ...tLabels };
  }
  if (unset(s.replicas)) s.replicas = 1;
  defaultTemplate(s);
}

function defaultJob(job: Obj): void {
  const s = spec(job);
  if (unset(s.completions) && unset(s.parallelism)) {
    s.completions = 1;
    s.parallelism = 1;
  }
  if (unset(s.parallelism)) s.parallelism = 1;
  if (unset(s.backoffLimit)) s.backoffLimit = unset(s.backoffLimitPerIndex) ? 6 : 2147483647;
  const template = isObject(s.template) ? s.template : undefined;
  const tLabels = isObject(template?.metadata) ? (template.metadata as Obj).labels : undefined;
  const meta = (isObject(job.metadata) ? job.metadata : (job.metadata = {})) as Obj;
  if (isObject(tLabels) && (!isObject(meta.labels) || !Object.keys(meta.labels).length)) meta.labels = { ...tLabels };
  s.completionMode ||= 'NonIndexed';
  if (unset(s.suspend)) s.suspend = false;
  if (unset(s.podReplacementPolicy))
    s.podReplacementPolicy = isObject(s.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (isObject(s.podFailurePolicy))
    for (const r of arr(s.podFailurePolicy.rules)) for (const c of arr(r.onPodConditions)) c.status ||= 'True';
  defaultTemplate(s);
}

/** SetDefaults_CronJob: Allow, not suspended, keep 3 succeeded and 1 failed Job; the template gets pod defaults only. */
function defaultCronJob(cj: Obj): void {
  const s = spec(cj);
  s.concurrencyPolicy ||= 'Allow';
  if (unset(s.suspend)) s.suspend = false;
  if (unset(s.successfulJobsHistoryLimit)) s.successfulJobsHistoryLimit = 3;
  if (unset(s.failedJobsHistoryLimit)) s.failedJobsHistoryLimit = 1;
  const jt = isObject(s.jobTemplate) ? s.jobTemplate : (s.jobTemplate = {});
  defaultTemplate(spec(jt));
}

/** SetDefaults_HorizontalPodAutoscaler (v2): minReplicas 1, and 80% average CPU utilization when no metric is given. */
function defaultHorizontalPodAutoscaler(hpa: Obj): void {
  const s = spec(hpa);
  if (unset(s.minReplicas)) s.minReplicas = 1;
  if (!Array.isArray(s.metrics) || !s.metrics.length)
    s.metrics = [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ];
}

/** SetDefaults_NetworkPolicy: ports default to TCP; policyTypes to Ingress, plus Egress when egress rules exist. */
function defaultNetworkPolicy(np: Obj): void {
  const s = spec(np);
  if (!isObject(s.podSelector)) s.podSelector = {};
  for (const r of [...arr(s.ingress), ...arr(s.egress)]) for (const p of arr(r.ports)) p.protocol ||= 'TCP';
  if (!Array.isArray(s.policyTypes) || !s.policyTypes.length)
    s.policyTypes = arr(s.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** The label a Job's generated selector uses, and its template carries. */
export const JOB_CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The label naming a Job on its pods. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/**
 * Like the job strategy's generateSelector: unless spec.manualSelector is true, the selector is
 * the job's uid and the template gets the uid and name labels (new and legacy spellings).
 */
export function generateJobSelector(job: KubeObject): void {
  const s = spec(job);
  if (s.manualSelector === true) return;
  const uid = job.metadata?.uid ?? '';
  const name = job.metadata?.name ?? '';
  const template = (isObject(s.template) ? s.template : (s.template = {})) as Obj;
  const tmeta = (isObject(template.metadata) ? template.metadata : (template.metadata = {})) as Obj;
  const labels = (isObject(tmeta.labels) ? tmeta.labels : (tmeta.labels = {})) as Record<string, string>;
  labels['controller-uid'] ??= uid;
  labels[JOB_CONTROLLER_UID_LABEL] ??= uid;
  labels['job-name'] ??= name;
  labels[JOB_NAME_LABEL] ??= name;
  if (unset(s.selector)) s.selector = { matchLabels: { [JOB_CONTROLLER_UID_LABEL]: uid } };
}

function defaultNamespace(ns: Obj): void {
  const meta = (isObject(ns.metadata) ? ns.metadata : (ns.metadata = {})) as Obj;
  // SetDefaults_Namespace: every named namespace carries its own name as a label, for selectors.
  if (meta.name)
    meta.labels = { ...(isObject(meta.labels) ? meta.labels : {}), 'kubernetes.io/metadata.name': meta.name };
  const status = (isObject(ns.status) ? ns.status : (ns.status = {})) as Obj;
  status.phase ||= 'Active';
}

/** The namespace strategy's PrepareForCreate: the "kubernetes" finalizer, and phase Active. */
export function prepareNamespaceForCreate(ns: KubeObject): void {
  const s = spec(ns);
  const fin = Array.isArray(s.finalizers) ? (s.finalizers as string[]) : [];
  if (!fin.includes('kubernetes')) s.finalizers = [...fin, 'kubernetes'];
  ns.status = { phase: 'Active' };
}

function defaultNode(node: Obj): void {
  const status = isObject(node.status) ? node.status : undefined;
  if (status && isObject(status.capacity) && unset(status.allocatable)) status.allocatable = { ...status.capacity };
}

function defaultEndpoints(ep: Obj): void {
  for (const s of arr(ep.subsets)) for (const p of arr(s.ports)) p.protocol ||= 'TCP';
}

function defaultEndpointSlice(es: Obj): void {
  for (const p of arr(es.ports)) {
    p.protocol ||= 'TCP';
    if (p.name === undefined) p.name = '';
  }
}

/**
 * Like upstream's v1 → internal Secret conversion: stringData is write-only, merged over data
 * (its values base64-encoded, a key in both taking stringData's) and never stored.
 */
function defaultSecret(s: Obj): void {
  s.type ||= 'Opaque';
  if (s.stringData === undefined) return;
  if (isObject(s.stringData)) {
    const data: Obj = isObject(s.data) ? { ...s.data } : {};
    for (const [k, v] of Object.entries(s.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    s.data = data;
  }
  delete s.stringData;
}

/** Like upstream's rbac/v1 defaults: a binding's roleRef and its User and Group subjects are in the RBAC group unless said. */
function defaultBinding(b: Obj): void {
  if (isObject(b.roleRef) && !b.roleRef.apiGroup) b.roleRef.apiGroup = 'rbac.authorization.k8s.io';
  for (const s of arr(b.subjects))
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = 'rbac.authorization.k8s.io';
}

const DEFAULTERS: Record<string, (o: Obj) => void> = {
  pods: defaultPod,
  services: defaultService,
  deployments: defaultDeployment,
  replicasets: defaultReplicaSet,
  statefulsets: defaultStatefulSet,
  daemonsets: defaultDaemonSet,
  replicationcontrollers: defaultReplicationController,
  jobs: defaultJob,
  cronjobs: defaultCronJob,
  horizontalpodautoscalers: defaultHorizontalPodAutoscaler,
  networkpolicies: defaultNetworkPolicy,
  namespaces: defaultNamespace,
  nodes: defaultNode,
  endpoints: defaultEndpoints,
  endpointslices: defaultEndpointSlice,
  secrets: defaultSecret,
  limitranges: defaultLimitRange,
  priorityclasses: (pc) => void (pc.preemptionPolicy ||= 'PreemptLowerPriority'),
  rolebindings: defaultBinding,
  clusterrolebindings: defaultBinding,
  flowschemas: defaultFlowSchema,
  prioritylevelconfigurations: defaultPriorityLevelConfiguration,
  persistentvolumes: defaultPersistentVolume,
  persistentvolumeclaims: defaultPersistentVolumeClaim,
  storageclasses: defaultStorageClass,
};

/** Applies upstream's defaults for `resource` (a plural or ResourceInfo) to `obj`, in place; returns it. */
export function applyDefaults<T extends KubeObject>(resource: ResourceInfo | string, obj: T): T {
  DEFAULTERS[typeof resource === 'string' ? resource : resource.resource]?.(obj);
  return obj;
}

export { defaultPod, defaultPodSpec, defaultContainer, imageTag } from './defaults_pod.js';
