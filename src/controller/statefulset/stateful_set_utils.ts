/**
 * The StatefulSet controller's decisions as pure functions, like upstream's
 * stateful_set_utils.go and the body of updateStatefulSet in
 * stateful_set_control.go: pod identity (name-N, the pod-name and pod-index
 * labels, hostname and subdomain), which ordinals to create and which pods
 * to delete under OrderedReady or Parallel management, the rolling update in
 * reverse ordinal order down to the partition, and the status counts.
 */
import type {
  OwnerReference,
  PersistentVolumeClaim,
  Pod,
  PodTemplateSpec,
  StatefulSet,
  StatefulSetStatus,
  Volume,
} from '../../api/index.js';
import { isPodAvailable, isPodReady } from '../controllerutil/index.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/index.js';

/** The label naming a StatefulSet pod (its stable network identity). */
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** The label holding a StatefulSet pod's ordinal. */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** The first ordinal (spec.ordinals.start, 0 by default). */
export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;

/** The ordinal of a pod named `<set>-<n>`, or undefined when the pod is not one of the set's (getParentNameAndOrdinal). */
export function getOrdinal(set: StatefulSet, pod: Pod): number | undefined {
  const name = pod.metadata?.name ?? '';
  const prefix = `${set.metadata?.name ?? ''}-`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/** The revision a pod runs (its controller-revision-hash label, the revision's name). */
export const getPodRevision = (pod: Pod): string => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';

/** Running with a Ready condition (isRunningAndReady). */
export const isRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && isPodReady(pod);

const isTerminating = (pod: Pod): boolean => pod.metadata?.deletionTimestamp !== undefined;
const isFinished = (pod: Pod): boolean => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';

/**
 * The claim volumes a pod of the set mounts: one PersistentVolumeClaim `<template>-<pod>` per volumeClaimTemplate,
 * like updateStorage.
 */
export function claimVolumes(set: StatefulSet, podName: string): Volume[] {
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => {
    const claim = t.metadata?.name ?? '';
    return { name: claim, persistentVolumeClaim: { claimName: `${claim}-${podName}` } };
  });
}

/**
 * The claims a pod of the set needs, like getPersistentVolumeClaims: each template named `<template>-<pod>` in the
 * set's namespace, labelled with the set's selector matchLabels over the template's own labels.
 */
export function getPersistentVolumeClaims(set: StatefulSet, podName: string): PersistentVolumeClaim[] {
  const match = set.spec?.selector?.matchLabels ?? {};
  return (set.spec?.volumeClaimTemplates ?? []).map((t) => {
    const claim = structuredClone(t);
    const md = claim.metadata ?? {};
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = {
      ...(md.annotations !== undefined ? { annotations: md.annotations } : {}),
      name: `${md.name ?? ''}-${podName}`,
      namespace: set.metadata!.namespace!,
      labels: { ...(md.labels ?? {}), ...match },
    };
    delete claim.status;
    return claim;
  });
}

/** Whether the pod's ordinal is within [start, start+replicas) (podInOrdinalRange); outside it a pod is condemned. */
export function podInOrdinalRange(set: StatefulSet, pod: Pod): boolean {
  const ord = getOrdinal(set, pod);
  const start = startOrdinal(set);
  return ord !== undefined && ord >= start && ord < start + (set.spec?.replicas ?? 1);
}

const ownerRef = (owner: { apiVersion: string; kind: string }, obj: Pod | StatefulSet): OwnerReference => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: obj.metadata!.name!,
  uid: obj.metadata!.uid!,
});

/**
 * The ownerReferences a claim of `pod` should carry under the set's persistentVolumeClaimRetentionPolicy, like
 * updateClaimOwnerRefForSetAndPod: whenDeleted=Delete makes the set an owner (the garbage collector deletes the
 * claim with the set); whenScaled=Delete makes a condemned pod (an ordinal scaled away) the owner instead, so the
 * claim goes with that pod. References to other owners are kept.
 */
export function claimOwnerRefs(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim): OwnerReference[] {
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy;
  const deleteWithSet = policy?.whenDeleted === 'Delete';
  const deleteWhenScaled = policy?.whenScaled === 'Delete';
  const condemned = !podInOrdinalRange(set, pod);
  const ownedByPod = deleteWhenScaled && condemned && pod.metadata?.uid !== undefined;
  const ownedBySet = deleteWithSet && !ownedByPod;
  const setUID = set.metadata?.uid;
  const podUID = pod.metadata?.uid;
  const others = (claim.metadata?.ownerReferences ?? []).filter(
    (r) => !(r.uid === setUID && r.kind === 'StatefulSet') && !(r.uid === podUID && r.kind === 'Pod'),
  );
  return [
    ...others,
    ...(ownedBySet ? [ownerRef({ apiVersion: 'apps/v1', kind: 'StatefulSet' }, set)] : []),
    ...(ownedByPod ? [ownerRef({ apiVersion: 'v1', kind: 'Pod' }, pod)] : []),
  ];
}

/** Whether two ownerReference lists name the same owners (claimOwnerMatchesSetAndPod's comparison). */
export function sameOwners(a: readonly OwnerReference[] | undefined, b: readonly OwnerReference[]): boolean {
  const key = (r: OwnerReference): string => `${r.kind}/${r.uid}`;
  const x = (a ?? []).map(key).sort();
  const y = b.map(key).sort();
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

/** newStatefulSetPod: the template with the ordinal's identity, revision label and claim volumes. */
export function newStatefulSetPod(
  set: StatefulSet,
  template: PodTemplateSpec | undefined,
  ordinal: number,
  revision: string,
): Pod {
  const name = `${set.metadata!.name!}-${ordinal}`;
  const md = template?.metadata ?? {};
  const spec = structuredClone(template?.spec ?? { containers: [] });
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  const claims = claimVolumes(set, name);
  if (claims.length > 0) {
    const own = new Set(claims.map((v) => v.name));
    spec.volumes = [...(spec.volumes ?? []).filter((v) => !own.has(v.name)), ...claims];
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata!.namespace!,
      labels: {
        ...(md.labels ?? {}),
        [STATEFULSET_POD_NAME_LABEL]: name,
        [POD_INDEX_LABEL]: String(ordinal),
        [CONTROLLER_REVISION_HASH_LABEL]: revision,
      },
      ...(md.annotations !== undefined ? { annotations: { ...md.annotations } } : {}),
    },
    spec,
  };
}

/**
 * Whether a new pod at `ordinal` takes the current revision instead of the update revision
 * (newVersionedStatefulSetPod): under RollingUpdate, ordinals below the partition stay on the current revision.
 */
export function usesCurrentRevision(set: StatefulSet, ordinal: number): boolean {
  const s = set.spec?.updateStrategy;
  if ((s?.type ?? 'RollingUpdate') !== 'RollingUpdate') return false;
  const partition = s?.rollingUpdate?.partition;
  if (partition === undefined) return ordinal - startOrdinal(set) < (set.status?.currentReplicas ?? 0);
  return ordinal - startOrdinal(set) < partition;
}

/** One step of a StatefulSet's sync: ordinals to create and pods to delete, in order. */
export interface StatefulSetPlan {
  create: number[];
  delete: Pod[];
}

/**
 * updateStatefulSet's decisions over the claimed pods: replace finished pods, create missing ordinals (one at a
 * time and only after every lower one is Running and Ready under OrderedReady, all at once under Parallel), delete
 * ordinals beyond the replica count highest first, then under RollingUpdate delete the highest pod at or above the
 * partition that is not on the update revision, waiting for each to be healthy again.
 */
export function planStatefulSet(set: StatefulSet, pods: readonly Pod[], updateRevision: string): StatefulSetPlan {
  const plan: StatefulSetPlan = { create: [], delete: [] };
  const monotonic = (set.spec?.podManagementPolicy ?? 'OrderedReady') !== 'Parallel';
  const start = startOrdinal(set);
  const count = set.spec?.replicas ?? 1;
  const replicas: (Pod | undefined)[] = new Array<Pod | undefined>(count).fill(undefined);
  const condemned: Pod[] = [];
  for (const p of pods) {
    const ord = getOrdinal(set, p);
    if (ord === undefined) continue;
    if (ord >= start && ord < start + count) replicas[ord - start] = p;
    else condemned.push(p);
  }
  condemned.sort((a, b) => getOrdinal(set, a)! - getOrdinal(set, b)!);
  const firstUnhealthy =
    replicas.find((p) => p !== undefined && !isRunningAndReady(p)) ?? condemned.find((p) => !isRunningAndReady(p));
  // While anything is unhealthy, OrderedReady waits, except to replace what has finished.
  for (let i = 0; i < count; i++) {
    const p = replicas[i];
    if (p !== undefined && isFinished(p) && !isTerminating(p)) {
      plan.delete.push(p);
      if (monotonic) return plan;
      continue;
    }
    if (p === undefined) {
      plan.create.push(start + i);
      if (monotonic) return plan;
      continue;
    }
    if (monotonic && (isTerminating(p) || !isRunningAndReady(p))) return plan;
  }
  for (let t = condemned.length - 1; t >= 0; t--) {
    const p = condemned[t];
    if (isTerminating(p)) {
      if (monotonic) return plan;
      continue;
    }
    if (monotonic && !isRunningAndReady(p) && p !== firstUnhealthy) return plan;
    plan.delete.push(p);
    if (monotonic) return plan;
  }
  const strategy = set.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return plan;
  // Parallel scale-up or scale-down still in flight: let it finish before replacing pods.
  if (plan.create.length > 0 || plan.delete.length > 0) return plan;
  const updateMin = strategy?.rollingUpdate?.partition ?? 0;
  for (let t = count - 1; t >= updateMin; t--) {
    const p = replicas[t];
    if (p === undefined) return plan;
    if (getPodRevision(p) !== updateRevision && !isTerminating(p)) {
      plan.delete.push(p);
      return plan;
    }
    if (!isRunningAndReady(p) || isTerminating(p)) return plan;
  }
  return plan;
}

/**
 * The status counts over the claimed pods (updateStatefulSet's status): replicas, ready, available, current and
 * updated; a RollingUpdate whose pods are all updated and ready makes the update revision current.
 */
export function statefulSetStatus(
  set: StatefulSet,
  pods: readonly Pod[],
  currentRevision: string,
  updateRevision: string,
  nowMs: number,
): StatefulSetStatus {
  const minReady = set.spec?.minReadySeconds ?? 0;
  const s: StatefulSetStatus = {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    currentRevision,
    updateRevision,
  };
  for (const p of pods) {
    if (getOrdinal(set, p) === undefined) continue;
    s.replicas!++;
    if (isRunningAndReady(p) && !isTerminating(p)) {
      s.readyReplicas!++;
      if (isPodAvailable(p, minReady, nowMs)) s.availableReplicas!++;
    }
    if (isTerminating(p)) continue;
    const rev = getPodRevision(p);
    if (rev === currentRevision) s.currentReplicas!++;
    if (rev === updateRevision) s.updatedReplicas!++;
  }
  if (
    (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' &&
    s.updatedReplicas === s.replicas &&
    s.readyReplicas === s.replicas
  ) {
    s.currentReplicas = s.updatedReplicas;
    s.currentRevision = updateRevision;
  }
  return s;
}
