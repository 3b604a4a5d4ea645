/**
 * RollingUpdate, like pkg/controller/deployment/rolling.go: scale the new
 * ReplicaSet up within maxSurge, scale old ones down within maxUnavailable
 * (unhealthy old replicas first), and clean up old revisions once complete.
 */
import { deploymentComplete } from './conditions.js';
import {
  byCreation,
  filterActiveReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  maxUnavailable,
  newRSNewReplicas,
  replicasOf,
} from './deployment_util.js';
import { syncRolloutStatus } from './progress.js';
import type { DeploymentSyncer } from './sync.js';
import type { Deployment, ReplicaSet } from '../../api/index.js';

const want = (d: Deployment): number => d.spec?.replicas ?? 1;

/** One step of a rolling update. */
export async function rolloutRolling(
  s: DeploymentSyncer,
  d: Deployment,
  original: Deployment,
  rsList: ReplicaSet[],
): Promise<number | undefined> {
  const { newRS, oldRSs } = await s.getAllReplicaSetsAndSyncRevision(d, original, rsList, true);
  const allRSs = [...oldRSs, newRS];
  if (await reconcileNewReplicaSet(s, allRSs, newRS!, d)) return syncRolloutStatus(s, allRSs, newRS, d, original);
  if (await reconcileOldReplicaSets(s, allRSs, filterActiveReplicaSets(oldRSs), newRS!, d))
    return syncRolloutStatus(s, allRSs, newRS, d, original);
  if (deploymentComplete(d, d.status ?? {})) await s.cleanupDeployment(oldRSs, d);
  return syncRolloutStatus(s, allRSs, newRS, d, original);
}

async function reconcileNewReplicaSet(
  s: DeploymentSyncer,
  allRSs: (ReplicaSet | undefined)[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  if (replicasOf(newRS) === want(d)) return false;
  if (replicasOf(newRS) > want(d)) return (await s.scaleReplicaSetAndRecordEvent(newRS, want(d), d)).scaled;
  return (await s.scaleReplicaSetAndRecordEvent(newRS, newRSNewReplicas(d, allRSs, newRS), d)).scaled;
}

async function reconcileOldReplicaSets(
  s: DeploymentSyncer,
  allRSs: (ReplicaSet | undefined)[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  if (getReplicaCountForReplicaSets(oldRSs) === 0) return false;
  const minAvailable = want(d) - maxUnavailable(d);
  const newRSUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = getReplicaCountForReplicaSets(allRSs) - minAvailable - newRSUnavailable;
  if (maxScaledDown <= 0) return false;
  const { oldRSs: cleaned, scaledDown: cleanup } = await cleanupUnhealthyReplicas(s, oldRSs, d, maxScaledDown);
  const scaledDown = await scaleDownOldReplicaSetsForRollingUpdate(s, [...cleaned, newRS], cleaned, d);
  return cleanup + scaledDown > 0;
}

/** Scales old ReplicaSets down by their unavailable replicas first: those cost no availability. */
async function cleanupUnhealthyReplicas(
  s: DeploymentSyncer,
  oldRSs: ReplicaSet[],
  d: Deployment,
  maxCleanup: number,
): Promise<{ oldRSs: ReplicaSet[]; scaledDown: number }> {
  const sorted = [...oldRSs].sort(byCreation);
  let total = 0;
  for (let i = 0; i < sorted.length && total < maxCleanup; i++) {
    const rs = sorted[i]!;
    const unhealthy = replicasOf(rs) - (rs.status?.availableReplicas ?? 0);
    if (replicasOf(rs) === 0 || unhealthy <= 0) continue;
    const n = Math.min(maxCleanup - total, unhealthy);
    sorted[i] = (await s.scaleReplicaSetAndRecordEvent(rs, replicasOf(rs) - n, d)).rs;
    total += n;
  }
  return { oldRSs: sorted, scaledDown: total };
}

/** Scales old ReplicaSets down as far as available pods above minAvailable allow. */
async function scaleDownOldReplicaSetsForRollingUpdate(
  s: DeploymentSyncer,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<number> {
  const minAvailable = want(d) - maxUnavailable(d);
  // A ReplicaSet just scaled down may still report its old pods available; never count more than it will keep.
  const available = getAvailableReplicaCountForReplicaSets(
    allRSs.map((rs) => ({
      ...rs,
      status: { ...rs.status, availableReplicas: Math.min(rs.status?.availableReplicas ?? 0, replicasOf(rs)) },
    })),
  );
  if (available <= minAvailable) return 0;
  const totalToScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (total >= totalToScaleDown) break;
    if (replicasOf(rs) === 0) continue;
    const n = Math.min(replicasOf(rs), totalToScaleDown - total);
    await s.scaleReplicaSetAndRecordEvent(rs, replicasOf(rs) - n, d);
    total += n;
  }
  return total;
}
