/**
 * Quota evaluators, as upstream's pkg/quota/v1/evaluator/core: what an object
 * charges against a quota (object counts and, for pods, services and claims,
 * the resources they use), whether a quota's scopes select it, and the pod
 * constraint that cpu and memory quotas require explicit requests or limits.
 */
import type { Container, Pod, ResourceList } from '../types/core.js';
import type { ResourceQuota, ScopedResourceSelectorRequirement } from '../types/quota.js';
import { addUsage, toUsage, type Usage } from './usage.js';

type Obj = Record<string, unknown>;

// The count names upstream keeps for core kinds besides count/<resource>.
const LEGACY_COUNTS = new Set([
  'pods',
  'services',
  'configmaps',
  'secrets',
  'persistentvolumeclaims',
  'replicationcontrollers',
  'resourcequotas',
]);

/** count/<resource> for the core group, count/<resource>.<group> otherwise. */
export const countName = (group: string, resource: string): string =>
  group === '' ? `count/${resource}` : `count/${resource}.${group}`;

/** True for a pod that no longer counts against compute quota (Succeeded or Failed), as upstream's QuotaV1Pod. */
export function isTerminalPod(pod: Pod, now: number): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  const deleted = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  return typeof deleted === 'string' && typeof grace === 'number' && Date.parse(deleted) + grace * 1000 < now;
}

function maxInto(acc: Usage, u: Usage): void {
  for (const [k, v] of u) if (v > (acc.get(k) ?? 0)) acc.set(k, v);
}

/** A pod's effective requests or limits: max(sum of containers, each init container) plus overhead. */
function podList(pod: Pod, which: 'requests' | 'limits'): Usage {
  const spec = pod.spec ?? { containers: [] };
  const sum: Usage = new Map();
  for (const c of spec.containers ?? []) addUsage(sum, toUsage(c.resources?.[which]));
  for (const c of spec.initContainers ?? []) maxInto(sum, toUsage(c.resources?.[which]));
  if (spec.overhead !== undefined) addUsage(sum, toUsage(spec.overhead));
  return sum;
}

/** upstream's podComputeUsageHelper: requests and limits as quota names (cpu doubles as requests.cpu). */
function computeUsage(requests: Usage, limits: Usage): Usage {
  const out: Usage = new Map();
  for (const [k, v] of requests) {
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') out.set(k, v);
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage' || k.startsWith('hugepages-'))
      out.set(`requests.${k}`, v);
    else if (k.includes('/')) out.set(`requests.${k}`, v);
  }
  for (const [k, v] of limits)
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') out.set(`limits.${k}`, v);
  return out;
}

/** What a pod charges: count/pods always, pods and compute resources while it is not terminal. */
export function podUsage(pod: Pod, now: number): Usage {
  const u: Usage = new Map([['count/pods', 1000]]);
  if (isTerminalPod(pod, now)) return u;
  u.set('pods', 1000);
  return addUsage(u, computeUsage(podList(pod, 'requests'), podList(pod, 'limits')));
}

function serviceUsage(svc: Obj): Usage {
  const spec = (svc.spec ?? {}) as {
    type?: string;
    ports?: { nodePort?: number }[];
    allocateLoadBalancerNodePorts?: boolean;
  };
  const u: Usage = new Map([
    ['services', 1000],
    ['count/services', 1000],
  ]);
  const ports = spec.ports ?? [];
  if (spec.type === 'LoadBalancer') {
    u.set('services.loadbalancers', 1000);
    const n =
      spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => (p.nodePort ?? 0) !== 0).length : ports.length;
    u.set('services.nodeports', n * 1000);
  } else if (spec.type === 'NodePort') u.set('services.nodeports', ports.length * 1000);
  return u;
}

function claimUsage(pvc: Obj): Usage {
  const spec = (pvc.spec ?? {}) as { storageClassName?: string; resources?: { requests?: ResourceList } };
  const u: Usage = new Map([
    ['persistentvolumeclaims', 1000],
    ['count/persistentvolumeclaims', 1000],
  ]);
  const storage = toUsage(spec.resources?.requests).get('storage');
  if (storage !== undefined) u.set('requests.storage', storage);
  const sc = spec.storageClassName;
  if (sc !== undefined && sc !== '') {
    u.set(`${sc}.storageclass.storage.k8s.io/persistentvolumeclaims`, 1000);
    if (storage !== undefined) u.set(`${sc}.storageclass.storage.k8s.io/requests.storage`, storage);
  }
  return u;
}

/** What one object of `group`/`resource` charges, in thousandths. */
export function usageOf(group: string, resource: string, obj: Obj, now: number): Usage {
  if (group === '' && resource === 'pods') return podUsage(obj as Pod, now);
  if (group === '' && resource === 'services') return serviceUsage(obj);
  if (group === '' && resource === 'persistentvolumeclaims') return claimUsage(obj);
  const u: Usage = new Map([[countName(group, resource), 1000]]);
  if (group === '' && LEGACY_COUNTS.has(resource)) u.set(resource, 1000);
  return u;
}

/** True when no container requests or limits cpu or memory (the BestEffort QoS class). */
export function isBestEffort(pod: Pod): boolean {
  const all: Container[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  return all.every((c) =>
    ['requests', 'limits'].every((w) => {
      const l = c.resources?.[w as 'requests' | 'limits'] ?? {};
      return l.cpu === undefined && l.memory === undefined;
    }),
  );
}

function crossNamespaceAffinity(pod: Pod): boolean {
  const a = (pod.spec as Obj | undefined)?.affinity as Obj | undefined;
  const terms: Obj[] = [];
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const k = a?.[kind] as Obj | undefined;
    terms.push(...((k?.requiredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined) ?? []));
    for (const w of (k?.preferredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined) ?? [])
      terms.push((w.podAffinityTerm ?? {}) as Obj);
  }
  return terms.some(
    (t) => ((t.namespaces as string[] | undefined) ?? []).length > 0 || t.namespaceSelector !== undefined,
  );
}

function scopeMatches(pod: Pod, req: ScopedResourceSelectorRequirement): boolean {
  let has: boolean;
  switch (req.scopeName) {
    case 'Terminating':
      has = typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0;
      break;
    case 'NotTerminating':
      has = !(typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0);
      break;
    case 'BestEffort':
      has = isBestEffort(pod);
      break;
    case 'NotBestEffort':
      has = !isBestEffort(pod);
      break;
    case 'CrossNamespacePodAffinity':
      has = crossNamespaceAffinity(pod);
      break;
    case 'PriorityClass': {
      const pc = pod.spec?.priorityClassName ?? '';
      if (req.operator === 'Exists') return pc !== '';
      if (req.operator === 'DoesNotExist') return pc === '';
      const inValues = (req.values ?? []).includes(pc);
      return req.operator === 'In' ? inValues : !inValues;
    }
    default:
      return false;
  }
  return req.operator === 'DoesNotExist' || req.operator === 'NotIn' ? !has : has;
}

/** The quota's scopes as selector requirements: each spec.scopes entry is an Exists. */
export function quotaScopes(rq: ResourceQuota): ScopedResourceSelectorRequirement[] {
  return [
    ...(rq.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })),
    ...(rq.spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

/** True when the quota's scopes select the object; a scoped quota only ever selects pods. */
export function quotaSelects(rq: ResourceQuota, group: string, resource: string, obj: Obj): boolean {
  const scopes = quotaScopes(rq);
  if (scopes.length === 0) return true;
  if (group !== '' || resource !== 'pods') return false;
  return scopes.every((s) => scopeMatches(obj as Pod, s));
}

const VALIDATION_SET = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory', 'cpu', 'memory'];

/**
 * upstream's pod Constraints: every container must set what a cpu or memory quota limits.
 * Returns "must specify limits.cpu for: a,b; requests.cpu for: a", or '' when satisfied.
 */
export function podConstraintViolation(pod: Pod, restricted: Iterable<string>): string {
  const required = new Set([...restricted].filter((r) => VALIDATION_SET.includes(r)));
  if (required.size === 0) return '';
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const have = computeUsage(toUsage(c.resources?.requests), toUsage(c.resources?.limits));
    for (const r of required) if (!have.has(r)) (missing.get(r) ?? missing.set(r, new Set()).get(r)!).add(c.name);
  }
  if (missing.size === 0) return '';
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}
