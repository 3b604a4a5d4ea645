/**
 * Coscheduling (gang scheduling), like scheduler-plugins' Coscheduling: a
 * pod joins a PodGroup by the label scheduling.x-k8s.io/pod-group.
 *  - QueueSort keeps a group's pods together (priority, then the group's
 *    creation time, then its name), so two gangs cannot interleave and
 *    deadlock each other.
 *  - PreEnqueue holds the pods until minMember of them exist.
 *  - Permit holds reserved pods until minMember of the group are reserved
 *    (or bound), then lets all of them bind; after scheduleTimeoutSeconds
 *    they are rejected.
 *  - PostFilter and Unreserve reject the group's waiting pods when one
 *    member cannot be placed, so a partial gang never holds resources.
 * It reads PodGroups and the pods of each group from informers it takes from
 * the handle's informer factory, like scheduler-plugins' PodGroupManager.
 */
import {
  Lister,
  RESOURCES,
  SharedInformerFactory,
  type GroupVersionResource,
  type KubeObject,
} from '../../../client/index.js';
import {
  ActionType,
  SCHEDULER_POD_SCOPE,
  type EnqueueExtensions,
  type Handle,
  type PermitPlugin,
  type PostFilterPlugin,
  type PreEnqueuePlugin,
  type PreFilterPlugin,
  type QueuedPodInfo,
  type QueueSortPlugin,
  type ReservePlugin,
} from '../../framework/interface.js';
import type { PodInfo } from '../../framework/pod_info.js';
import { Code, newStatus, pluginStatus } from '../../framework/status.js';
import type { Pod } from '../../../api/index.js';

/** The plugin name. */
export const NAME = 'Coscheduling';
/** The pod label by which a pod joins a PodGroup, as in scheduler-plugins. */
export const POD_GROUP_LABEL = 'scheduling.x-k8s.io/pod-group';
/** scheduling.x-k8s.io/v1alpha1 podgroups. */
export const PODGROUPS: GroupVersionResource = {
  group: 'scheduling.x-k8s.io',
  version: 'v1alpha1',
  resource: 'podgroups',
  namespaced: true,
};
/** PodGroup changes, as a cluster event resource. */
const PODGROUP_EVENTS = 'podgroups.v1alpha1.scheduling.x-k8s.io';
/** The pod index by group, keyed "namespace/group". */
const POD_GROUP_INDEX = POD_GROUP_LABEL;

/** scheduling.x-k8s.io/v1alpha1 PodGroup. */
export interface PodGroup extends KubeObject {
  spec?: { minMember?: number; scheduleTimeoutSeconds?: number; minResources?: Record<string, string | number> };
  status?: {
    phase?: string;
    scheduled?: number;
    running?: number;
    succeeded?: number;
    failed?: number;
    occupiedBy?: string;
    scheduleStartTime?: string;
  };
}

/** CoschedulingArgs, with scheduler-plugins' default wait. */
export interface CoschedulingArgs {
  permitWaitingTimeSeconds?: number;
}

const groupName = (p: PodInfo): string | undefined => p.labels[POD_GROUP_LABEL];
const live = (p: Pod): boolean =>
  p.metadata?.deletionTimestamp === undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** Builds Coscheduling. */
export function coscheduling(
  args: CoschedulingArgs,
  handle: Handle,
): QueueSortPlugin &
  PreEnqueuePlugin &
  PreFilterPlugin &
  PostFilterPlugin &
  ReservePlugin &
  PermitPlugin &
  EnqueueExtensions {
  const defaultWaitMs = (args.permitWaitingTimeSeconds ?? 60) * 1000;
  const informers = handle.informerFactory();
  const podGroups = new Lister<PodGroup>(informers.informerFor<PodGroup>(PODGROUPS).indexer);
  const pods = informers.informerFor<Pod>(RESOURCES.pods, SCHEDULER_POD_SCOPE);
  SharedInformerFactory.ensureIndex(pods, POD_GROUP_INDEX, (p) => {
    const g = p.metadata?.labels?.[POD_GROUP_LABEL];
    return g !== undefined ? [`${p.metadata?.namespace ?? ''}/${g}`] : [];
  });
  const podGroup = (ns: string, name: string): PodGroup | undefined => podGroups.get(`${ns}/${name}`);
  /** Non-terminal pods of a group, assigned or not. */
  const podsOfGroup = (ns: string, name: string): Pod[] => pods.indexer.byIndex(POD_GROUP_INDEX, `${ns}/${name}`);
  const created = new Map<string, number>();
  const groupCreated = (ns: string, name: string): number | undefined => {
    const g = podGroup(ns, name);
    if (g === undefined) return undefined;
    const k = `${ns}/${name}@${g.metadata?.uid ?? ''}`;
    let t = created.get(k);
    if (t === undefined) {
      t = Date.parse(g.metadata?.creationTimestamp ?? '') || 0;
      if (created.size > 10_000) created.clear();
      created.set(k, t);
    }
    return t;
  };
  const sortKey = (q: QueuedPodInfo): [number, string] => {
    const g = groupName(q.podInfo);
    if (g === undefined) return [q.initialAttemptTimestamp, q.podInfo.key];
    return [groupCreated(q.podInfo.namespace, g) ?? q.initialAttemptTimestamp, `${q.podInfo.namespace}/${g}`];
  };
  const rejectWaiting = (pod: PodInfo, message: string): void => {
    const g = groupName(pod);
    if (g === undefined) return;
    for (const w of [...handle.waitingPods()])
      if (w.pod.namespace === pod.namespace && groupName(w.pod) === g && w.pod.uid !== pod.uid) w.reject(NAME, message);
  };
  const minMember = (pod: PodInfo): { min: number; timeoutMs: number } | undefined => {
    const g = groupName(pod);
    if (g === undefined) return undefined;
    const pg = podGroup(pod.namespace, g);
    if (pg === undefined) return { min: -1, timeoutMs: defaultWaitMs };
    const t = pg.spec?.scheduleTimeoutSeconds;
    return { min: pg.spec?.minMember ?? 1, timeoutMs: t !== undefined && t > 0 ? t * 1000 : defaultWaitMs };
  };
  const enoughPods = (pod: PodInfo): string | undefined => {
    const g = groupName(pod);
    const mm = minMember(pod);
    if (g === undefined || mm === undefined) return undefined;
    if (mm.min < 0) return `PodGroup ${pod.namespace}/${g} not found`;
    const n = podsOfGroup(pod.namespace, g).filter(live).length;
    return n < mm.min
      ? `pre-enqueue: the group ${pod.namespace}/${g} has ${n} pods, less than minMember ${mm.min}`
      : undefined;
  };
  const sameGroup = (pod: PodInfo, oldObj: unknown, newObj: unknown): boolean => {
    const g = groupName(pod);
    const o = (newObj ?? oldObj) as Pod | undefined;
    return (
      g !== undefined &&
      o?.metadata?.namespace === pod.namespace &&
      (o.metadata?.labels?.[POD_GROUP_LABEL] === g || o.metadata?.name === g)
    );
  };
  return {
    name: NAME,
    less(a, b) {
      if (a.podInfo.priority !== b.podInfo.priority) return a.podInfo.priority > b.podInfo.priority;
      const [ta, ka] = sortKey(a);
      const [tb, kb] = sortKey(b);
      if (ta !== tb) return ta < tb;
      if (ka !== kb) return ka < kb;
      return a.timestamp < b.timestamp;
    },
    preEnqueue(pod) {
      const why = enoughPods(pod);
      return why === undefined ? null : pluginStatus(NAME, Code.UnschedulableAndUnresolvable, why);
    },
    preFilter(_state, pod) {
      const why = enoughPods(pod);
      return why === undefined ? null : pluginStatus(NAME, Code.UnschedulableAndUnresolvable, why);
    },
    async postFilter(_state, pod) {
      const g = groupName(pod);
      if (g === undefined) return { status: newStatus(Code.Unschedulable) };
      rejectWaiting(pod, `PodGroup ${pod.namespace}/${g} rejected: pod ${pod.name} is unschedulable`);
      return {
        status: newStatus(
          Code.Unschedulable,
          `PodGroup ${pod.namespace}/${g} gets rejected due to Pod ${pod.name} being unschedulable even after PostFilter`,
        ),
      };
    },
    reserve: () => null,
    unreserve(_state, pod) {
      rejectWaiting(
        pod,
        `PodGroup ${pod.namespace}/${groupName(pod) ?? ''} rejected: member ${pod.name} was unreserved`,
      );
    },
    permit(_state, pod) {
      const g = groupName(pod);
      const mm = minMember(pod);
      if (g === undefined || mm === undefined) return { status: null, timeoutMs: 0 };
      // Members reserved or bound, this one included (it was assumed at Reserve).
      const snap = handle.snapshot() as unknown as { hasPod(key: string): boolean };
      let placed = 0;
      for (const p of podsOfGroup(pod.namespace, g))
        if (live(p) && ((p.spec?.nodeName ?? '') !== '' || snap.hasPod(`${pod.namespace}/${p.metadata?.name ?? ''}`)))
          placed++;
      if (placed < mm.min) return { status: newStatus(Code.Wait), timeoutMs: mm.timeoutMs };
      for (const w of [...handle.waitingPods()])
        if (w.pod.namespace === pod.namespace && groupName(w.pod) === g) w.allow(NAME);
      return { status: null, timeoutMs: 0 };
    },
    eventsToRegister: () => [
      { event: { resource: 'UnscheduledPod', action: ActionType.Add }, hint: sameGroup },
      { event: { resource: PODGROUP_EVENTS, action: ActionType.Add | ActionType.Update }, hint: sameGroup },
      { event: { resource: 'AssignedPod', action: ActionType.Delete } },
      {
        event: {
          resource: 'Node',
          action:
            ActionType.Add | ActionType.UpdateNodeAllocatable | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint,
        },
      },
    ],
  };
}
