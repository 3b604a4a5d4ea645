/**
 * Rollout progress, like pkg/controller/deployment/progress.go: the
 * Progressing condition (NewReplicaSetAvailable, ReplicaSetUpdated,
 * ProgressDeadlineExceeded), ReplicaFailure copied from the new ReplicaSet,
 * and when to look again so a stuck rollout times out on time.
 */
import {
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  getDeploymentCondition,
  hasProgressDeadline,
  newDeploymentCondition,
  REASONS,
  removeDeploymentCondition,
  setDeploymentCondition,
} from './conditions.js';
import { semanticEqual } from './deployment_util.js';
import type { DeploymentSyncer } from './sync.js';
import { parseTimestamp, type Deployment, type DeploymentStatus, type ReplicaSet } from '../../api/index.js';

/** Writes the rollout's status; returns ms after which the Deployment must be synced again to notice a timeout. */
export async function syncRolloutStatus(
  s: DeploymentSyncer,
  allRSs: (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
  original: Deployment,
): Promise<number | undefined> {
  const status = s.calculateStatus(allRSs, newRS, d);
  const now = s.deps.clock.now();
  if (!hasProgressDeadline(d)) removeDeploymentCondition(status, 'Progressing');
  const current = getDeploymentCondition(d.status, 'Progressing');
  const complete = status.replicas === status.updatedReplicas && current?.reason === REASONS.newRSAvailable;
  if (hasProgressDeadline(d) && !complete) {
    const what = newRS !== undefined ? `ReplicaSet "${newRS.metadata!.name!}"` : `Deployment "${d.metadata!.name!}"`;
    if (deploymentComplete(d, status)) {
      setDeploymentCondition(
        status,
        newDeploymentCondition(
          'Progressing',
          'True',
          REASONS.newRSAvailable,
          `${what} has successfully progressed.`,
          now,
        ),
      );
    } else if (deploymentProgressing(d, status)) {
      const cond = newDeploymentCondition('Progressing', 'True', REASONS.rsUpdated, `${what} is progressing.`, now);
      // Progress moves lastUpdateTime even with the same reason; the transition time stays while True.
      if (current !== undefined) {
        if (current.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
        removeDeploymentCondition(status, 'Progressing');
      }
      setDeploymentCondition(status, cond);
    } else if (deploymentTimedOut(d, status, now)) {
      setDeploymentCondition(
        status,
        newDeploymentCondition('Progressing', 'False', REASONS.timedOut, `${what} has timed out progressing.`, now),
      );
    }
  }
  const failure = newRS?.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  if (failure !== undefined)
    setDeploymentCondition(
      status,
      newDeploymentCondition('ReplicaFailure', 'True', failure.reason ?? '', failure.message ?? '', now),
    );
  else removeDeploymentCondition(status, 'ReplicaFailure');
  if (semanticEqual(status, original.status)) return requeueStuckDeployment(d, status, now);
  d.status = status;
  await s.updateDeploymentStatus(d, original);
  return undefined;
}

/** ms until the progress deadline passes, for a rollout neither complete nor timed out (requeueStuckDeployment). */
function requeueStuckDeployment(d: Deployment, status: DeploymentStatus, now: number): number | undefined {
  const cond = getDeploymentCondition(status, 'Progressing');
  if (
    !hasProgressDeadline(d) ||
    cond === undefined ||
    deploymentComplete(d, status) ||
    cond.reason === REASONS.timedOut
  )
    return undefined;
  const from = parseTimestamp(cond.lastUpdateTime) ?? now;
  return Math.max(0, from + d.spec!.progressDeadlineSeconds! * 1000 - now) + 1000;
}
