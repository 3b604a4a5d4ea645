/**
 * The DaemonSet controller's decisions as pure functions, like upstream's
 * podsShouldBeOnNode, rollingUpdate and updateDaemonSetStatus: which nodes
 * need a pod, which pods go, how far a rolling update may go under
 * maxUnavailable and maxSurge, and the status counts.
 */
import { parseTimestamp, type DaemonSet, type DaemonSetStatus, type Node, type Pod } from '../../api/index.js';
import { isPodAvailable, isPodReady } from '../controllerutil/index.js';
import { isPodUpdated, type DaemonNodePredicate, type NodeShouldRun } from './util.js';

/** What a sync does on one node: create a pod there, and which pods to delete. */
export interface NodeDecision {
  create: boolean;
  delete: Pod[];
}

const created = (p: Pod): number => parseTimestamp(p.metadata?.creationTimestamp) ?? 0;
// podByCreationTimestampAndPhase: running pods before others, then oldest first, then by name.
const byAge = (a: Pod, b: Pod): number =>
  Number(b.status?.phase === 'Running') - Number(a.status?.phase === 'Running') ||
  created(a) - created(b) ||
  (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');

/** Whether the DaemonSet surges (maxSurge non-zero) during a rolling update (AllowsSurge). */
export function allowsSurge(ds: DaemonSet): boolean {
  const s = ds.spec?.updateStrategy;
  if ((s?.type ?? 'RollingUpdate') !== 'RollingUpdate') return false;
  const v = s?.rollingUpdate?.maxSurge;
  return v !== undefined && v !== 0 && v !== '0%';
}

/**
 * podsShouldBeOnNode: a node that should run the pod and has none gets one; failed pods are replaced; of several
 * running pods the oldest stays (with surge, the oldest new one, and the oldest old one while the new one is not yet
 * available); a node that may not keep the pod loses every one.
 */
export function podsShouldBeOnNode(
  pods: readonly Pod[],
  should: NodeShouldRun,
  ds: DaemonSet,
  hash: string,
  nowMs: number,
): NodeDecision {
  const out: NodeDecision = { create: false, delete: [] };
  if (should.shouldRun && pods.length === 0) {
    out.create = true;
    return out;
  }
  if (!should.shouldContinueRunning) {
    out.delete = pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
    return out;
  }
  const running: Pod[] = [];
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp !== undefined) continue;
    if (p.status?.phase === 'Failed') out.delete.push(p);
    else running.push(p);
  }
  // A failed pod is replaced once it is gone; with no other pod, the node needs a new one.
  if (should.shouldRun && running.length === 0 && out.delete.length > 0) out.create = true;
  if (running.length <= 1) return out;
  running.sort(byAge);
  if (!allowsSurge(ds)) {
    out.delete.push(...running.slice(1));
    return out;
  }
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const p of running) {
    if (isPodUpdated(p, hash)) {
      if (oldestNew === undefined) {
        oldestNew = p;
        continue;
      }
    } else if (oldestOld === undefined) {
      oldestOld = p;
      continue;
    }
    out.delete.push(p);
  }
  if (oldestNew !== undefined && oldestOld !== undefined) {
    if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec?.minReadySeconds ?? 0, nowMs))
      out.delete.push(oldestOld);
  }
  return out;
}

/** The int-or-percent against `total`, rounded up, like GetScaledValueFromIntOrPercent(…, true). */
function scaled(v: number | string | undefined, total: number): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  return m === null ? 0 : Math.ceil((Number(m[1]) * total) / 100);
}

/** maxSurge and maxUnavailable for `desired` nodes; both zero means one unavailable (updatedDesiredNodeCounts). */
export function surgeAndUnavailable(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  const maxSurge = allowsSurge(ds) ? scaled(ru?.maxSurge, desired) : 0;
  let maxUnavailable = scaled(ru?.maxUnavailable ?? 1, desired);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** The one new and one old live pod on a node; undefined when there are more, for the manage loop to prune. */
function updatedPodsOnNode(pods: readonly Pod[], hash: string): { newPod?: Pod; oldPod?: Pod } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp !== undefined) continue;
    if (isPodUpdated(p, hash)) {
      if (newPod !== undefined) return undefined;
      newPod = p;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = p;
    }
  }
  return { newPod, oldPod };
}

/** What one rolling-update step does: old pods to delete, and nodes to surge a new pod onto. */
export interface RollingUpdatePlan {
  delete: Pod[];
  createOn: string[];
}

/**
 * rollingUpdate: without surge, delete old pods (unavailable ones first, always allowed) while fewer than
 * maxUnavailable nodes are unavailable, and let the manage loop recreate them; with surge, start new pods next to
 * old ones (at once where the old one is unavailable, else up to maxSurge) and delete an old pod once its new
 * neighbour is available. `nodeToPods` holds the daemon pods by node, in the order nodes are considered.
 */
export function rollingUpdatePlan(
  ds: DaemonSet,
  nodeToPods: ReadonlyMap<string, readonly Pod[]>,
  desired: number,
  hash: string,
  nowMs: number,
): RollingUpdatePlan {
  const { maxSurge, maxUnavailable } = surgeAndUnavailable(ds, desired);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod): boolean => isPodAvailable(p, minReady, nowMs);
  if (maxSurge === 0) {
    let numUnavailable = 0;
    const replace: Pod[] = [];
    const candidates: Pod[] = [];
    for (const pods of nodeToPods.values()) {
      const found = updatedPodsOnNode(pods, hash);
      if (found === undefined) {
        numUnavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if ((oldPod === undefined) === (newPod === undefined)) numUnavailable++;
      else if (newPod !== undefined) {
        if (!available(newPod)) numUnavailable++;
      } else if (!available(oldPod!)) replace.push(oldPod!);
      else if (numUnavailable < maxUnavailable) candidates.push(oldPod!);
    }
    const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
    return { delete: [...replace, ...candidates.slice(0, remaining)], createOn: [] };
  }
  const del: Pod[] = [];
  const allowedNew: string[] = [];
  const candidateNew: string[] = [];
  let numSurge = 0;
  for (const [node, pods] of nodeToPods) {
    const found = updatedPodsOnNode(pods, hash);
    if (found === undefined) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!available(oldPod)) allowedNew.push(node);
      else candidateNew.push(node);
    } else if (!available(newPod)) numSurge++;
    else del.push(oldPod);
  }
  const remaining = Math.min(Math.max(0, maxSurge - numSurge), candidateNew.length);
  return { delete: del, createOn: [...allowedNew, ...candidateNew.slice(0, remaining)] };
}

/** updateDaemonSetStatus's counts over every node: desired, current, misscheduled, ready, available, updated. */
export function daemonSetStatusCounts(
  ds: DaemonSet,
  nodes: readonly Node[],
  shouldRun: DaemonNodePredicate,
  nodeToPods: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
): DaemonSetStatus {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const s = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    numberAvailable: 0,
    updatedNumberScheduled: 0,
    numberUnavailable: 0,
  };
  for (const node of nodes) {
    const pods = nodeToPods.get(node.metadata?.name ?? '') ?? [];
    if (shouldRun(node).shouldRun) {
      s.desiredNumberScheduled++;
      if (pods.length === 0) continue;
      s.currentNumberScheduled++;
      const pod = [...pods].sort(byAge)[0];
      if (isPodReady(pod)) {
        s.numberReady++;
        if (isPodAvailable(pod, minReady, nowMs)) s.numberAvailable++;
      }
      if (isPodUpdated(pod, hash)) s.updatedNumberScheduled++;
    } else if (pods.length > 0) s.numberMisscheduled++;
  }
  s.numberUnavailable = Math.max(0, s.desiredNumberScheduled - s.numberAvailable);
  return s;
}
