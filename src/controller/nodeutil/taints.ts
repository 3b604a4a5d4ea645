/**
 * Taints, like pkg/util/taints, plus the taint templates the node lifecycle
 * controller writes. Toleration matching itself is src/api's (v1helper).
 */
import { matchTaint, type Taint, type Toleration } from '../../api/index.js';

/** node.kubernetes.io/not-ready: the node's Ready condition is False. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
/** node.kubernetes.io/unreachable: the node's Ready condition is Unknown. */
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
/** node.kubernetes.io/unschedulable: spec.unschedulable is set. */
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
/** node.kubernetes.io/memory-pressure. */
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
/** node.kubernetes.io/disk-pressure. */
export const TAINT_NODE_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
/** node.kubernetes.io/network-unavailable. */
export const TAINT_NODE_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
/** node.kubernetes.io/pid-pressure. */
export const TAINT_NODE_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';

/** The NoExecute taint for an unreachable node (UnreachableTaintTemplate). */
export const UNREACHABLE_TAINT_TEMPLATE: Readonly<Taint> = { key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' };
/** The NoExecute taint for a not-ready node (NotReadyTaintTemplate). */
export const NOT_READY_TAINT_TEMPLATE: Readonly<Taint> = { key: TAINT_NODE_NOT_READY, effect: 'NoExecute' };

/** Same key, value, effect and timeAdded (semantic equality). */
export function taintEqual(a: Taint, b: Taint): boolean {
  return matchTaint(a, b) && (a.value ?? '') === (b.value ?? '') && (a.timeAdded ?? '') === (b.timeAdded ?? '');
}

/** Whether `taints` holds a taint matching `t` (taints.TaintExists). */
export function taintExists(taints: readonly Taint[] | undefined, t: Taint): boolean {
  return (taints ?? []).some((x) => matchTaint(x, t));
}

/** The node's NoExecute taints. */
export function noExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/**
 * The shortest tolerationSeconds of `tolerations` in ms, like tainteviction's
 * getMinTolerationTime: -1 means forever (none sets it), 0 or less means now.
 */
export function minTolerationTimeMs(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = -1;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    const ms = Math.max(0, t.tolerationSeconds) * 1000;
    if (ms === 0) return 0;
    if (min < 0 || ms < min) min = ms;
  }
  return min;
}
