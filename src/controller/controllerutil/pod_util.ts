/**
 * Pod state helpers shared by the workload controllers, like upstream's
 * podutil (IsPodReady, IsPodAvailable) and controller_utils
 * (FilterActivePods, IsPodActive, IsPodTerminal).
 */
import { getCondition } from '../nodeutil/index.js';
import { parseTimestamp, type Pod } from '../../api/index.js';

/** True when the pod's Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return getCondition(pod.status?.conditions, 'Ready')?.status === 'True';
}

/** When the pod last became Ready, in ms; undefined when not Ready or the time is unknown. */
export function podReadyTime(pod: Pod): number | undefined {
  const c = getCondition(pod.status?.conditions, 'Ready');
  return c?.status === 'True' ? parseTimestamp(c.lastTransitionTime) : undefined;
}

/** Ready for at least minReadySeconds at `nowMs`, like podutil.IsPodAvailable. */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadyTime(pod);
  return since !== undefined && since + minReadySeconds * 1000 <= nowMs;
}

/** Succeeded or Failed: the pod will never run again. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Counts toward a controller's replicas: not terminal and not being deleted, like controller.IsPodActive. */
export function isPodActive(pod: Pod): boolean {
  return !isPodTerminal(pod) && pod.metadata?.deletionTimestamp === undefined;
}

/** The active pods of `pods`, like controller.FilterActivePods. */
export function filterActivePods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodActive);
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Orders pods so the ones cheapest to lose come first, like upstream's
 * ActivePodsWithRanks: unassigned before assigned, Pending before Unknown
 * before Running, not Ready before Ready, pods on crowded nodes (higher rank)
 * first, Ready for less time first, more restarts first, newer first.
 */
export function compareForDeletion(a: Pod, b: Pod, rankA: number, rankB: number): number {
  const assignedA = a.spec?.nodeName ? 1 : 0;
  const assignedB = b.spec?.nodeName ? 1 : 0;
  if (assignedA !== assignedB) return assignedA - assignedB;
  const phaseA = PHASE_RANK[a.status?.phase ?? 'Pending'] ?? 0;
  const phaseB = PHASE_RANK[b.status?.phase ?? 'Pending'] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = isPodReady(a) ? 1 : 0;
  const readyB = isPodReady(b) ? 1 : 0;
  if (readyA !== readyB) return readyA - readyB;
  if (rankA !== rankB) return rankB - rankA;
  if (readyA === 1) {
    // Later readiness (shorter time Ready) goes first, compared on a log scale like upstream's buckets.
    const tA = podReadyTime(a) ?? 0;
    const tB = podReadyTime(b) ?? 0;
    if (tA !== tB) return tB - tA;
  }
  const restarts = (p: Pod): number =>
    (p.status?.containerStatuses ?? []).reduce((n, c) => Math.max(n, c.restartCount ?? 0), 0);
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const cA = parseTimestamp(a.metadata?.creationTimestamp) ?? 0;
  const cB = parseTimestamp(b.metadata?.creationTimestamp) ?? 0;
  return cB - cA;
}
