/**
 * PodInfo, like upstream's framework.PodInfo: what the scheduler derives from
 * a pod once (its effective requests, its parsed affinity terms) so no
 * plugin re-parses quantities or selectors per node.
 */
import { fromLabelSelector, type LabelSelectorMatcher } from '../../api/index.js';
import { accumulate, milli, newResource, value, type Resource } from './resource.js';
import type { Container, Pod, PodAffinityTerm, PodSpec, Toleration, WeightedPodAffinityTerm } from '../../api/index.js';

/** Upstream's defaults for pods without requests, used by scoring only (DefaultMilliCPURequest, DefaultMemoryRequest). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** A parsed pod (anti-)affinity term. */
export interface AffinityTerm {
  /** Namespaces the term selects pods in; null means all namespaces (an empty namespaceSelector). */
  namespaces: ReadonlySet<string> | null;
  selector: LabelSelectorMatcher;
  topologyKey: string;
  /** The weight of a preferred term (1 for required terms). */
  weight: number;
  /** Identifies equal terms across pods, so aggregates are shared. */
  signature: string;
}

/** True when `pod` is selected by `term`. */
export function termMatches(term: AffinityTerm, pod: PodInfo): boolean {
  return (term.namespaces === null || term.namespaces.has(pod.namespace)) && term.selector.matches(pod.labels);
}

/** Scheduling-relevant facts about one pod. */
export interface PodInfo {
  pod: Pod;
  /** namespace/name */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  labels: Readonly<Record<string, string>>;
  priority: number;
  /** Effective requests (init containers and overhead included). */
  requests: Resource;
  /** Requests with upstream's defaults for unset CPU and memory, for scoring. */
  nonZeroCPU: number;
  nonZeroMemory: number;
  tolerations: readonly Toleration[];
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: AffinityTerm[];
  preferredAntiAffinity: AffinityTerm[];
  /** Host ports as "protocol/hostIP/port". */
  hostPorts: string[];
  /** creationTimestamp in ms (0 when unset). */
  created: number;
}

const NO_TERMS: AffinityTerm[] = [];
const EMPTY_LABELS: Readonly<Record<string, string>> = Object.freeze({});

function parseTerm(t: PodAffinityTerm, podNamespace: string, weight: number): AffinityTerm {
  let namespaces: Set<string> | null = new Set(t.namespaces ?? []);
  const nsSel = t.namespaceSelector;
  // An empty namespaceSelector selects every namespace; without one (and no list), the pod's own namespace.
  if (
    nsSel !== undefined &&
    nsSel !== null &&
    Object.keys(nsSel.matchLabels ?? {}).length === 0 &&
    (nsSel.matchExpressions ?? []).length === 0
  )
    namespaces = null;
  else if (namespaces.size === 0) namespaces.add(podNamespace);
  let selector: LabelSelectorMatcher;
  try {
    selector = fromLabelSelector(t.labelSelector);
  } catch {
    selector = fromLabelSelector(undefined);
  }
  const nsKey = namespaces === null ? '*' : [...namespaces].sort().join(',');
  return {
    namespaces,
    selector,
    topologyKey: t.topologyKey,
    weight,
    signature: `${nsKey}|${selector.toString()}|${t.topologyKey}|${selector.nothing ? 'nothing' : ''}`,
  };
}

const required = (terms: PodAffinityTerm[] | undefined, ns: string): AffinityTerm[] =>
  terms === undefined || terms.length === 0 ? NO_TERMS : terms.map((t) => parseTerm(t, ns, 1));
const preferred = (terms: WeightedPodAffinityTerm[] | undefined, ns: string): AffinityTerm[] =>
  terms === undefined || terms.length === 0 ? NO_TERMS : terms.map((t) => parseTerm(t.podAffinityTerm, ns, t.weight));

function containerNonZero(c: Container): [number, number] {
  const req = c.resources?.requests;
  const cpu = req?.cpu;
  const mem = req?.memory;
  return [
    cpu === undefined ? DEFAULT_MILLI_CPU_REQUEST : milli(cpu),
    mem === undefined ? DEFAULT_MEMORY_REQUEST : value(mem),
  ];
}

/** Derives a PodInfo; cheap enough to run on every pod event. */
export function newPodInfo(pod: Pod): PodInfo {
  const spec: Partial<PodSpec> = pod.spec ?? {};
  const m = pod.metadata ?? {};
  const namespace = m.namespace ?? '';
  const name = m.name ?? '';
  const requests = newResource();
  let nzCPU = 0;
  let nzMem = 0;
  const add = (a: number, b: number): number => a + b;
  for (const c of spec.containers ?? []) {
    accumulate(requests, c.resources?.requests, add);
    const [cpu, mem] = containerNonZero(c);
    nzCPU += cpu;
    nzMem += mem;
  }
  // Sidecars (restartable init containers) run beside the app; other init containers run alone, so the max applies.
  const inits = spec.initContainers ?? [];
  if (inits.length > 0) {
    const sidecars = newResource();
    for (const c of inits) {
      if (c.restartPolicy === 'Always') {
        accumulate(requests, c.resources?.requests, add);
        accumulate(sidecars, c.resources?.requests, add);
        continue;
      }
      const one = newResource();
      accumulate(one, c.resources?.requests, add);
      requests.milliCPU = Math.max(requests.milliCPU, one.milliCPU + sidecars.milliCPU);
      requests.memory = Math.max(requests.memory, one.memory + sidecars.memory);
      requests.ephemeralStorage = Math.max(requests.ephemeralStorage, one.ephemeralStorage + sidecars.ephemeralStorage);
      if (one.scalar !== undefined) {
        requests.scalar ??= new Map();
        for (const [k, v] of one.scalar)
          requests.scalar.set(k, Math.max(requests.scalar.get(k) ?? 0, v + (sidecars.scalar?.get(k) ?? 0)));
      }
    }
  }
  accumulate(requests, spec.overhead, add);
  const aff = spec.affinity;
  const hostPorts: string[] = [];
  for (const c of spec.containers ?? [])
    for (const p of c.ports ?? [])
      if (p.hostPort !== undefined && p.hostPort > 0)
        hostPorts.push(`${p.protocol ?? 'TCP'}/${p.hostIP ?? '0.0.0.0'}/${p.hostPort}`);
  const created = m.creationTimestamp ? Date.parse(m.creationTimestamp) : 0;
  return {
    pod,
    key: `${namespace}/${name}`,
    namespace,
    name,
    uid: m.uid ?? '',
    labels: m.labels ?? EMPTY_LABELS,
    priority: spec.priority ?? 0,
    requests,
    nonZeroCPU: nzCPU,
    nonZeroMemory: nzMem,
    tolerations: spec.tolerations ?? [],
    requiredAffinity: required(aff?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, namespace),
    requiredAntiAffinity: required(aff?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, namespace),
    preferredAffinity: preferred(aff?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution, namespace),
    preferredAntiAffinity: preferred(aff?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution, namespace),
    hostPorts,
    created: Number.isFinite(created) ? created : 0,
  };
}

/**
 * Points `info` at a newer object of the same pod whose spec and labels are unchanged (a status write), so the
 * cache stops holding the old object beside the informer's new one; what was derived from the spec stays.
 */
export function refreshPodInfo(info: PodInfo, pod: Pod): void {
  info.pod = pod;
  info.uid = pod.metadata?.uid ?? info.uid;
  info.labels = pod.metadata?.labels ?? EMPTY_LABELS;
  info.tolerations = pod.spec?.tolerations ?? [];
}

/** True when the pod has any pod (anti-)affinity term. */
export const hasPodAffinityTerms = (p: PodInfo): boolean =>
  p.requiredAffinity.length +
    p.requiredAntiAffinity.length +
    p.preferredAffinity.length +
    p.preferredAntiAffinity.length >
  0;
