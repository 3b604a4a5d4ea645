/**
 * Deployment conditions and rollout predicates, like deployment_util.go's
 * NewDeploymentCondition, SetDeploymentCondition and DeploymentComplete /
 * DeploymentProgressing / DeploymentTimedOut, with upstream's reasons, which
 * kubectl rollout status reads.
 */
import {
  formatTimestamp,
  parseTimestamp,
  type Deployment,
  type DeploymentCondition,
  type DeploymentStatus,
} from '../../api/index.js';

/** Upstream's condition reasons. */
export const REASONS = {
  foundNewRS: 'FoundNewReplicaSet',
  newRSCreated: 'NewReplicaSetCreated',
  newRSAvailable: 'NewReplicaSetAvailable',
  rsUpdated: 'ReplicaSetUpdated',
  timedOut: 'ProgressDeadlineExceeded',
  failedRSCreate: 'ReplicaSetCreateError',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** A condition stamped now. */
export function newDeploymentCondition(
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  nowMs: number,
): DeploymentCondition {
  const t = formatTimestamp(nowMs);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** The condition of `type`, if any. */
export function getDeploymentCondition(
  status: DeploymentStatus | undefined,
  type: string,
): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** Sets `cond` unless one with the same status and reason is there; a same-status change keeps its transition time. */
export function setDeploymentCondition(status: DeploymentStatus, cond: DeploymentCondition): void {
  const current = getDeploymentCondition(status, cond.type);
  if (current !== undefined && current.status === cond.status && current.reason === cond.reason) return;
  const next =
    current !== undefined && current.status === cond.status
      ? { ...cond, lastTransitionTime: current.lastTransitionTime }
      : cond;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), next];
}

/** Removes the condition of `type`. */
export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  if (status.conditions === undefined) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** progressDeadlineSeconds is set and not "forever" (MaxInt32). */
export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== 2147483647;
}

/** Every replica updated and available, and the generation observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const want = d.spec?.replicas ?? 1;
  return (
    (s.updatedReplicas ?? 0) === want &&
    (s.replicas ?? 0) === want &&
    (s.availableReplicas ?? 0) === want &&
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0)
  );
}

/** Something moved since the last status: more updated, ready or available pods, or fewer old ones. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** The Progressing condition was last updated more than progressDeadlineSeconds ago. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getDeploymentCondition(s, 'Progressing');
  if (c === undefined || c.reason === REASONS.newRSAvailable) return false;
  if (c.reason === REASONS.timedOut) return true;
  const from = parseTimestamp(c.lastUpdateTime);
  return from !== undefined && from + d.spec!.progressDeadlineSeconds! * 1000 < nowMs;
}
