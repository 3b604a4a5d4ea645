/**
 * Recreate, like pkg/controller/deployment/recreate.go: scale every old
 * ReplicaSet to zero, wait until none of their pods runs, then create and
 * scale up the new ReplicaSet.
 */
import { deploymentComplete } from './conditions.js';
import { filterActiveReplicaSets, getActualReplicaCountForReplicaSets } from './deployment_util.js';
import { syncRolloutStatus } from './progress.js';
import type { DeploymentSyncer } from './sync.js';
import type { Deployment, Pod, ReplicaSet } from '../../api/index.js';

/** One step of a Recreate rollout; `podMap` holds the Deployment's pods by their ReplicaSet's uid. */
export async function rolloutRecreate(
  s: DeploymentSyncer,
  d: Deployment,
  original: Deployment,
  rsList: ReplicaSet[],
  podMap: Map<string, Pod[]>,
): Promise<number | undefined> {
  let { newRS, oldRSs } = await s.getAllReplicaSetsAndSyncRevision(d, original, rsList, false);
  let scaledDown = false;
  for (const rs of filterActiveReplicaSets(oldRSs))
    if ((await s.scaleReplicaSetAndRecordEvent(rs, 0, d)).scaled) scaledDown = true;
  if (scaledDown || oldPodsRunning(newRS, oldRSs, podMap))
    return syncRolloutStatus(s, [...oldRSs, newRS], newRS, d, original);
  if (newRS === undefined) ({ newRS, oldRSs } = await s.getAllReplicaSetsAndSyncRevision(d, original, rsList, true));
  await s.scaleReplicaSetAndRecordEvent(newRS!, d.spec?.replicas ?? 1, d);
  if (deploymentComplete(d, d.status ?? {})) await s.cleanupDeployment(oldRSs, d);
  return syncRolloutStatus(s, [...oldRSs, newRS], newRS, d, original);
}

/** Any old ReplicaSet still reports pods, or any pod outside the new ReplicaSet has not terminated. */
function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], podMap: Map<string, Pod[]>): boolean {
  if (getActualReplicaCountForReplicaSets(oldRSs) > 0) return true;
  for (const [uid, pods] of podMap) {
    if (uid === newRS?.metadata?.uid) continue;
    if (pods.some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}
