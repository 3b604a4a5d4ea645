/**
 * ReplicaSet status, like pkg/controller/replicaset/replica_set_utils.go:
 * counts of the pods a ReplicaSet owns (replicas, fully labeled, ready,
 * available), the ReplicaFailure condition, and a status write that happens
 * only when something changed.
 */
import { isConflictError, type ResourceClient } from '../../client/index.js';
import { isPodAvailable, isPodReady } from '../controllerutil/index.js';
import {
  formatTimestamp,
  matchesLabelSet,
  type Pod,
  type ReplicaSet,
  type ReplicaSetCondition,
  type ReplicaSetStatus,
} from '../../api/index.js';

/** Computes a ReplicaSet's status from its active pods; a manageReplicas error sets ReplicaFailure. */
export function calculateStatus(
  rs: ReplicaSet,
  pods: readonly Pod[],
  manageErr: { reason: string; message: string } | undefined,
  nowMs: number,
): ReplicaSetStatus {
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fully = 0;
  let ready = 0;
  let available = 0;
  for (const p of pods) {
    const labels = p.metadata?.labels ?? {};
    if (matchesLabelSet(templateLabels, labels)) fully++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, nowMs)) available++;
    }
  }
  const conditions: ReplicaSetCondition[] = (rs.status?.conditions ?? []).map((c) => ({ ...c }));
  const failure = conditions.findIndex((c) => c.type === 'ReplicaFailure');
  if (manageErr !== undefined && failure < 0) {
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      reason: manageErr.reason,
      message: manageErr.message,
      lastTransitionTime: formatTimestamp(nowMs),
    });
  } else if (manageErr === undefined && failure >= 0) {
    conditions.splice(failure, 1);
  }
  const status: ReplicaSetStatus = {
    replicas: pods.length,
    fullyLabeledReplicas: fully,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: rs.status?.observedGeneration ?? 0,
  };
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}

function sameStatus(a: ReplicaSetStatus | undefined, b: ReplicaSetStatus): boolean {
  return (
    (a?.replicas ?? 0) === b.replicas &&
    (a?.fullyLabeledReplicas ?? 0) === b.fullyLabeledReplicas &&
    (a?.readyReplicas ?? 0) === b.readyReplicas &&
    (a?.availableReplicas ?? 0) === b.availableReplicas &&
    JSON.stringify(a?.conditions ?? []) === JSON.stringify(b.conditions ?? [])
  );
}

/** Writes `status` unless nothing changed and the generation was already observed; retries once on a conflict, like upstream. */
export async function updateReplicaSetStatus(
  client: ResourceClient<ReplicaSet>,
  rs: ReplicaSet,
  status: ReplicaSetStatus,
): Promise<ReplicaSet> {
  const generation = rs.metadata?.generation ?? 0;
  if (sameStatus(rs.status, status) && (rs.status?.observedGeneration ?? 0) === generation) return rs;
  let current = rs;
  for (let attempt = 0; ; attempt++) {
    // Only sent, never changed: a shallow copy with the new status does.
    const next: ReplicaSet = {
      ...current,
      status: { ...status, observedGeneration: current.metadata?.generation ?? generation },
    };
    try {
      return await client.updateStatus(next, { namespace: current.metadata!.namespace! });
    } catch (err) {
      if (attempt >= 1 || !isConflictError(err)) throw err;
      current = await client.get(current.metadata!.name!, { namespace: current.metadata!.namespace! });
    }
  }
}
