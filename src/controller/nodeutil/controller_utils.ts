/**
 * The writes node controllers share, like pkg/controller/util/node:
 * SwapNodeControllerTaint (AddOrUpdateTaintOnNode + RemoveTaintOffNode, a
 * patch guarded by resourceVersion, retried on conflict) and MarkPodsNotReady.
 */
import { isConflictError, isNotFoundError, type ClientLogger, type ResourceClient } from '../../client/index.js';
import { getCondition, updateCondition } from './conditions.js';
import { taintEqual, taintExists } from './taints.js';
import { deepCopy } from './deep_copy.js';
import { formatTimestamp, matchTaint, type Node, type Pod, type Taint } from '../../api/index.js';

/** Attempts of a taint patch before giving up, like upstream's UpdateTaintBackoff steps. */
const TAINT_UPDATE_ATTEMPTS = 5;

/**
 * Adds `toAdd` (stamping NoExecute taints with timeAdded=now) and removes `toRemove`
 * in one resourceVersion-guarded patch; true when the node now carries the wanted taints.
 */
export async function swapNodeControllerTaint(
  nodes: ResourceClient<Node>,
  node: Node,
  toAdd: readonly Taint[],
  toRemove: readonly Taint[],
  nowMs: number,
  log: ClientLogger,
): Promise<boolean> {
  const stamped = toAdd.map((t) => (t.effect === 'NoExecute' ? { ...t, timeAdded: formatTimestamp(nowMs) } : { ...t }));
  // Like RemoveTaintOffNode, skip the write when the cached node shows nothing to do.
  if (stamped.length === 0 && !toRemove.some((t) => taintExists(node.spec?.taints, t))) return true;
  let current: Node = node;
  for (let attempt = 0; attempt < TAINT_UPDATE_ATTEMPTS; attempt++) {
    const taints = nextTaints(current.spec?.taints ?? [], stamped, toRemove);
    if (taints === undefined) return true;
    try {
      await nodes.patch(current.metadata!.name!, 'merge', {
        metadata: { resourceVersion: current.metadata?.resourceVersion },
        spec: { taints },
      });
      return true;
    } catch (err) {
      if (isNotFoundError(err)) return false;
      if (!isConflictError(err)) {
        log.warn({ node: node.metadata?.name, err: String(err) }, 'failed to update node taints');
        return false;
      }
      try {
        current = await nodes.get(node.metadata!.name!);
      } catch (getErr) {
        log.warn({ node: node.metadata?.name, err: String(getErr) }, 'failed to get node for a taint update');
        return false;
      }
    }
  }
  return false;
}

/** The taint list after AddOrUpdateTaint and RemoveTaint; undefined when nothing changes. */
function nextTaints(
  existing: readonly Taint[],
  toAdd: readonly Taint[],
  toRemove: readonly Taint[],
): Taint[] | undefined {
  let changed = false;
  let out = existing.map((t) => ({ ...t }));
  for (const add of toAdd) {
    const i = out.findIndex((t) => matchTaint(t, add));
    if (i < 0) out.push(add);
    else if (!taintEqual(out[i]!, add)) out[i] = add;
    else continue;
    changed = true;
  }
  const kept = out.filter((t) => !toRemove.some((r) => matchTaint(t, r)));
  if (kept.length !== out.length) changed = true;
  out = kept;
  return changed ? out : undefined;
}

/**
 * MarkPodsNotReady: sets the Ready condition of each pod on `nodeName` to False
 * through pods/status, so endpoints drop them. Pods without a Ready condition are left alone.
 */
export async function markPodsNotReady(
  pods: ResourceClient<Pod>,
  list: readonly Pod[],
  nodeName: string,
  nowMs: number,
  log: ClientLogger,
): Promise<void> {
  const errors: unknown[] = [];
  for (const cached of list) {
    if (cached.spec?.nodeName !== nodeName) continue;
    const ready = getCondition(cached.status?.conditions, 'Ready');
    if (ready === undefined || ready.status === 'False') continue;
    const pod = deepCopy(cached);
    const conditions = pod.status!.conditions!;
    if (!updateCondition(conditions, { ...ready, status: 'False' }, formatTimestamp(nowMs))) continue;
    try {
      await pods.updateStatus(pod);
      log.debug(
        { pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, node: nodeName },
        'updating ready status of pod to false',
      );
    } catch (err) {
      if (!isNotFoundError(err)) errors.push(err);
    }
  }
  if (errors.length > 0)
    throw new AggregateError(errors, `marking pods NotReady on node ${nodeName}: ${errors.map(String).join('; ')}`);
}
