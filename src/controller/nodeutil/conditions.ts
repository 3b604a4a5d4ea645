/** Condition helpers, like pkg/controller/util/node's GetNodeCondition and pod util's UpdatePodCondition. */

/** The fields every condition type (NodeCondition, PodCondition, the workloads' conditions) shares. */
export interface Condition {
  type: string;
  /** True, False or Unknown. */
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

/** The condition of `type` in `conditions`, or undefined. */
export function getCondition<C extends Condition>(conditions: C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets `cond` in `conditions` (appending when absent) and reports whether anything changed.
 * lastTransitionTime moves only when the status changes, like UpdatePodCondition.
 */
export function updateCondition<C extends Condition>(conditions: C[], cond: C, now: string): boolean {
  const i = conditions.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    conditions.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? now });
    return true;
  }
  const old = conditions[i]!;
  const next: C = { ...old, ...cond, lastTransitionTime: cond.status === old.status ? old.lastTransitionTime : now };
  const changed = next.status !== old.status || next.reason !== old.reason || next.message !== old.message;
  conditions[i] = next;
  return changed;
}
