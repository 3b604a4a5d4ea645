/**
 * Which nodes run a DaemonSet's pod, and what the pod looks like, like
 * upstream's pkg/controller/daemon/util and NodeShouldRunDaemonPod: the
 * template's nodeName, nodeSelector and required node affinity must match the
 * node, and its taints must be tolerated with the DaemonSet's default
 * tolerations added. The pod is bound to its node by the default scheduler
 * through a required node affinity on `metadata.name`.
 */
import {
  compileTerms,
  findMatchingUntoleratedTaint,
  type Affinity,
  type DaemonSet,
  type Node,
  type Pod,
  type PodSpec,
  type Toleration,
} from '../../api/index.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/index.js';

/** The taint keys the default DaemonSet tolerations name, as upstream's well-known taints. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
const TAINT_NODE_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';

const exists = (key: string, effect: string): Toleration => ({ key, operator: 'Exists', effect });

/** AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates, plus network-unavailable for hostNetwork pods. */
export function daemonPodTolerations(spec: PodSpec | undefined): Toleration[] {
  const add = [
    exists(TAINT_NODE_NOT_READY, 'NoExecute'),
    exists(TAINT_NODE_UNREACHABLE, 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (spec?.hostNetwork === true) add.push(exists(TAINT_NODE_NETWORK_UNAVAILABLE, 'NoSchedule'));
  const out = [...(spec?.tolerations ?? [])];
  // AddOrUpdateTolerationInPodSpec: a toleration with the same key and effect is replaced, others kept.
  for (const t of add) {
    const i = out.findIndex((o) => (o.key ?? '') === t.key && (o.effect ?? '') === t.effect);
    if (i >= 0) out[i] = t;
    else out.push(t);
  }
  return out;
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes `metadata.name In [nodeName]`. */
export function nodeNameAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const required = {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
  };
  const a = structuredClone(affinity ?? {});
  a.nodeAffinity = { ...(a.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: required };
  return a;
}

/** The node a daemon pod is for: its spec.nodeName, or the node its `metadata.name` affinity names (GetTargetNodeName). */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? [])
    for (const f of t.matchFields ?? [])
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  return undefined;
}

/** Whether a pod runs the revision `hash` (IsPodUpdated, by the controller-revision-hash label). */
export const isPodUpdated = (pod: Pod, hash: string): boolean =>
  hash !== '' && pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash;

/** Whether a node should run a daemon pod now, and whether one already there may stay. */
export interface NodeShouldRun {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/** A DaemonSet's node predicate, compiled once per sync so a sync over thousands of nodes stays cheap. */
export type DaemonNodePredicate = (node: Node) => NodeShouldRun;

const NO: NodeShouldRun = { shouldRun: false, shouldContinueRunning: false };
const YES: NodeShouldRun = { shouldRun: true, shouldContinueRunning: true };
const STAY: NodeShouldRun = { shouldRun: false, shouldContinueRunning: true };

/**
 * NodeShouldRunDaemonPod for every node: nodeName, nodeSelector and required node affinity decide whether the node
 * is eligible at all; an untolerated NoSchedule or NoExecute taint keeps new pods off, and only an untolerated
 * NoExecute taint evicts a running one.
 */
export function nodeShouldRunDaemonPod(ds: DaemonSet): DaemonNodePredicate {
  const spec = ds.spec?.template?.spec;
  const nodeName = spec?.nodeName ?? '';
  const selector = Object.entries(spec?.nodeSelector ?? {});
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const affinity = terms === undefined ? undefined : compileTerms(terms);
  const tolerations = daemonPodTolerations(spec);
  return (node) => {
    const name = node.metadata?.name ?? '';
    if (nodeName !== '' && nodeName !== name) return NO;
    const labels = node.metadata?.labels ?? {};
    for (const [k, v] of selector) if (labels[k] !== v) return NO;
    if (affinity !== undefined && !affinity({ labels, name })) return NO;
    const taints = node.spec?.taints ?? [];
    if (taints.length === 0) return YES;
    const blocking = findMatchingUntoleratedTaint(taints, tolerations, (e) => e === 'NoSchedule' || e === 'NoExecute');
    if (blocking === undefined) return YES;
    const evicting = findMatchingUntoleratedTaint(taints, tolerations, (e) => e === 'NoExecute');
    return evicting === undefined ? STAY : NO;
  };
}
