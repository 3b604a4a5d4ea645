/**
 * The Deployment controller's shared sync steps, like
 * pkg/controller/deployment/sync.go: finding or creating the new ReplicaSet
 * (pod-template-hash, revision, hash collisions), scaling ReplicaSets
 * (proportionally while a rollout is under way), cleaning old revisions past
 * revisionHistoryLimit, and computing and writing status.
 */
import {
  isAlreadyExistsError,
  type EventRecorder,
  type NamespaceLister,
  type ResourceClient,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import { getControllerOf, KIND_DEPLOYMENT, newControllerRef } from '../controllerutil/index.js';
import { deepCopy } from '../nodeutil/index.js';
import {
  getDeploymentCondition,
  hasProgressDeadline,
  newDeploymentCondition,
  REASONS,
  setDeploymentCondition,
} from './conditions.js';
import {
  byCreation,
  byRevision,
  computeHash,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  equalIgnoreHash,
  filterActiveReplicaSets,
  findNewReplicaSet,
  findOldReplicaSets,
  getActualReplicaCountForReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getReadyReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  intAnnotation,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  REVISION_ANNOTATION,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  setNewReplicaSetAnnotations,
  semanticEqual,
  setReplicasAnnotations,
} from './deployment_util.js';
import type { Deployment, DeploymentStatus, ReplicaSet } from '../../api/index.js';

const want = (d: Deployment): number => d.spec?.replicas ?? 1;

/** What the sync steps act through. */
export interface DeploymentSyncDeps {
  deployments: ResourceClient<Deployment>;
  replicaSets: ResourceClient<ReplicaSet>;
  rsLister: (namespace: string) => NamespaceLister<ReplicaSet>;
  recorder: EventRecorder;
  clock: Clock;
}

/** The sync steps; `d` is always the controller's working copy, kept at the latest resourceVersion written. */
export class DeploymentSyncer {
  constructor(readonly deps: DeploymentSyncDeps) {}

  /** Records an Event about the Deployment. */
  event(d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.deps.recorder.event({ ...d, ...KIND_DEPLOYMENT }, type, reason, message);
  }

  /**
   * Writes the Deployment's status. The revision annotation goes first through
   * an update (the verb upstream's deployment-controller role grants), since
   * kscale's status subresource, unlike upstream's apps status strategy, keeps
   * metadata as it was.
   */
  async updateDeploymentStatus(d: Deployment, original: Deployment): Promise<void> {
    const ns = d.metadata!.namespace!;
    const rev = d.metadata?.annotations?.[REVISION_ANNOTATION];
    if (rev !== undefined && rev !== original.metadata?.annotations?.[REVISION_ANNOTATION]) {
      // The working copy carries the annotation; a main-resource update keeps the stored status.
      const updated = await this.deps.deployments.update(d, { namespace: ns });
      d.metadata!.resourceVersion = updated.metadata?.resourceVersion;
      original.metadata = {
        ...original.metadata,
        annotations: { ...original.metadata?.annotations, [REVISION_ANNOTATION]: rev },
      };
    }
    const written = await this.deps.deployments.updateStatus(d, { namespace: ns });
    d.metadata!.resourceVersion = written.metadata?.resourceVersion;
    original.status = deepCopy(written.status);
  }

  /** The new ReplicaSet (created when asked and missing) and every old one; syncs revisions on the way. */
  async getAllReplicaSetsAndSyncRevision(
    d: Deployment,
    original: Deployment,
    rsList: ReplicaSet[],
    create: boolean,
  ): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const oldRSs = findOldReplicaSets(d, rsList);
    const newRS = await this.getNewReplicaSet(d, original, rsList, oldRSs, create);
    return { newRS, oldRSs };
  }

  /** Sets Progressing=True with `reason`, as upstream does once it finds or creates the new ReplicaSet. */
  private setProgressing(status: DeploymentStatus, reason: string, message: string): void {
    setDeploymentCondition(
      status,
      newDeploymentCondition('Progressing', 'True', reason, message, this.deps.clock.now()),
    );
  }

  private async getNewReplicaSet(
    d: Deployment,
    original: Deployment,
    rsList: ReplicaSet[],
    oldRSs: ReplicaSet[],
    create: boolean,
  ): Promise<ReplicaSet | undefined> {
    const existing = findNewReplicaSet(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    const ns = d.metadata!.namespace!;
    const status: DeploymentStatus = (d.status ??= {});
    if (existing !== undefined) {
      // Every change below replaces a metadata field or spec whole (copy on write), so a copy of the top and of metadata does.
      const rsCopy: ReplicaSet = { ...existing, metadata: { ...existing.metadata } };
      const annotationsUpdated = setNewReplicaSetAnnotations(d, rsCopy, newRevision, true);
      const minReadyUpdate = (rsCopy.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0);
      if (annotationsUpdated || minReadyUpdate) {
        rsCopy.spec = { ...rsCopy.spec, minReadySeconds: d.spec?.minReadySeconds ?? 0 };
        return this.deps.replicaSets.update(rsCopy, { namespace: ns });
      }
      let needsUpdate = setDeploymentRevision(d, rsCopy.metadata?.annotations?.[REVISION_ANNOTATION] ?? '');
      if (hasProgressDeadline(d) && getDeploymentCondition(status, 'Progressing') === undefined) {
        this.setProgressing(status, REASONS.foundNewRS, `Found new replica set "${rsCopy.metadata!.name!}"`);
        needsUpdate = true;
      }
      if (needsUpdate) await this.updateDeploymentStatus(d, original);
      return rsCopy;
    }
    if (!create) return undefined;

    const template = deepCopy(d.spec?.template ?? {});
    const hash = computeHash(template, status.collisionCount);
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash },
    };
    const selector = deepCopy(d.spec?.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash };
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata!.name!}-${hash}`,
        namespace: ns,
        ownerReferences: [newControllerRef(d, KIND_DEPLOYMENT)],
        labels: { ...template.metadata.labels },
      },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const replicas = newRSNewReplicas(d, [...oldRSs, rs], rs);
    rs.spec!.replicas = replicas;
    setNewReplicaSetAnnotations(d, rs, newRevision, false);
    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = await this.deps.replicaSets.create(rs, { namespace: ns });
    } catch (err) {
      if (isAlreadyExistsError(err)) {
        const found =
          this.deps.rsLister(ns).get(rs.metadata!.name!) ??
          (await this.deps.replicaSets.get(rs.metadata!.name!, { namespace: ns }));
        if (
          getControllerOf(found)?.uid === d.metadata?.uid &&
          equalIgnoreHash(d.spec?.template, found.spec?.template)
        ) {
          created = found;
          alreadyExists = true;
        } else {
          // A hash collision: bump collisionCount so the next sync computes another name.
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          await this.updateDeploymentStatus(d, original);
          throw err;
        }
      } else {
        const msg = `Failed to create new replica set "${rs.metadata!.name!}": ${(err as Error).message}`;
        if (hasProgressDeadline(d)) {
          setDeploymentCondition(
            status,
            newDeploymentCondition('Progressing', 'False', REASONS.failedRSCreate, msg, this.deps.clock.now()),
          );
          await this.updateDeploymentStatus(d, original).catch(() => undefined);
        }
        this.event(d, 'Warning', REASONS.failedRSCreate, msg);
        throw err;
      }
    }
    if (!alreadyExists && replicas > 0)
      this.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata!.name!} from 0 to ${replicas}`,
      );
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && hasProgressDeadline(d)) {
      this.setProgressing(status, REASONS.newRSCreated, `Created new replica set "${created.metadata!.name!}"`);
      needsUpdate = true;
    }
    if (needsUpdate) await this.updateDeploymentStatus(d, original);
    return created;
  }

  /** Scales `rs` to `newScale` and records ScalingReplicaSet; false when it already had that size. */
  async scaleReplicaSetAndRecordEvent(
    rs: ReplicaSet,
    newScale: number,
    d: Deployment,
  ): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    if (replicasOf(rs) === newScale) return { scaled: false, rs };
    return this.scaleReplicaSet(rs, newScale, d, replicasOf(rs) < newScale ? 'up' : 'down');
  }

  /** Writes a ReplicaSet's size and its desired/max replicas annotations. */
  async scaleReplicaSet(
    rs: ReplicaSet,
    newScale: number,
    d: Deployment,
    op: string,
  ): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const sizeNeedsUpdate = replicasOf(rs) !== newScale;
    const maxReplicas = want(d) + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, want(d), maxReplicas)) return { scaled: false, rs };
    const oldScale = replicasOf(rs);
    const copy = deepCopy(rs);
    copy.spec = { ...copy.spec, replicas: newScale };
    setReplicasAnnotations(copy, want(d), maxReplicas);
    const updated = await this.deps.replicaSets.update(copy, { namespace: rs.metadata!.namespace! });
    if (sizeNeedsUpdate)
      this.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${op} replica set ${rs.metadata!.name!} from ${oldScale} to ${newScale}`,
      );
    return { scaled: sizeNeedsUpdate, rs: updated };
  }

  /** True when an active ReplicaSet was last scaled for another spec.replicas (isScalingEvent). */
  async isScalingEvent(d: Deployment, original: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, original, rsList, false);
    return filterActiveReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
      return desired !== undefined && desired !== want(d);
    });
  }

  /** sync: scale for a scaling event or a paused Deployment, then status. */
  async sync(d: Deployment, original: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, original, rsList, false);
    await this.scale(d, newRS, oldRSs);
    if (d.spec?.paused === true) await this.cleanupDeployment(oldRSs, d);
    await this.syncDeploymentStatus([...oldRSs, newRS], newRS, d, original);
  }

  /** Scales to spec.replicas: the one active ReplicaSet directly, several proportionally (scale). */
  async scale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
    const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
    if (activeOrLatest !== undefined) {
      if (replicasOf(activeOrLatest) !== want(d)) await this.scaleReplicaSetAndRecordEvent(activeOrLatest, want(d), d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of filterActiveReplicaSets(oldRSs)) await this.scaleReplicaSetAndRecordEvent(old, 0, d);
      return;
    }
    if ((d.spec?.strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return;
    const all = filterActiveReplicaSets([...oldRSs, newRS]);
    const allowed = want(d) > 0 ? want(d) + maxSurge(d) : 0;
    const toAdd = allowed - getReplicaCountForReplicaSets(all);
    let op = '';
    // Larger first; ties go to the newer when growing and the older when shrinking (ReplicaSetsBySizeNewer/Older).
    if (toAdd > 0) {
      all.sort((a, b) => replicasOf(b) - replicasOf(a) || -byCreation(a, b));
      op = 'up';
    } else if (toAdd < 0) {
      all.sort((a, b) => replicasOf(b) - replicasOf(a) || byCreation(a, b));
      op = 'down';
    }
    let added = 0;
    const sizes = all.map((rs) => {
      if (toAdd === 0) return replicasOf(rs);
      const p = getProportion(rs, d, toAdd, added);
      added += p;
      return replicasOf(rs) + p;
    });
    for (let i = 0; i < all.length; i++) {
      // Leftovers from rounding go to the largest ReplicaSet.
      if (i === 0 && toAdd !== 0) sizes[0] = Math.max(0, sizes[0]! + toAdd - added);
      await this.scaleReplicaSet(all[i]!, sizes[i]!, d, op);
    }
  }

  /** Deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit (cleanupDeployment). */
  async cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => rs.metadata?.deletionTimestamp === undefined).sort(byRevision);
    const diff = cleanable.length - limit;
    for (let i = 0; i < diff; i++) {
      const rs = cleanable[i]!;
      // Never delete a ReplicaSet that still has pods or an unobserved spec change.
      if (
        (rs.status?.replicas ?? 0) !== 0 ||
        replicasOf(rs) !== 0 ||
        (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)
      )
        continue;
      await this.deps.replicaSets
        .delete(rs.metadata!.name!, { namespace: rs.metadata!.namespace! })
        .catch(() => undefined);
    }
  }

  /** Writes status when it changed (syncDeploymentStatus). */
  async syncDeploymentStatus(
    allRSs: (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
    d: Deployment,
    original: Deployment,
  ): Promise<void> {
    const status = this.calculateStatus(allRSs, newRS, d);
    if (semanticEqual(status, original.status)) return;
    d.status = status;
    await this.updateDeploymentStatus(d, original);
  }

  /** The status from the ReplicaSets' counts, with the Available condition (calculateStatus). */
  calculateStatus(allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): DeploymentStatus {
    const available = getAvailableReplicaCountForReplicaSets(allRSs);
    const total = getReplicaCountForReplicaSets(allRSs);
    const status: DeploymentStatus = {
      observedGeneration: d.metadata?.generation ?? 0,
      replicas: getActualReplicaCountForReplicaSets(allRSs),
      updatedReplicas: getActualReplicaCountForReplicaSets([newRS]),
      readyReplicas: getReadyReplicaCountForReplicaSets(allRSs),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, total - available),
      conditions: (d.status?.conditions ?? []).map((c) => ({ ...c })),
    };
    if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
    const now = this.deps.clock.now();
    if (available >= want(d) - maxUnavailable(d)) {
      setDeploymentCondition(
        status,
        newDeploymentCondition(
          'Available',
          'True',
          REASONS.minimumReplicasAvailable,
          'Deployment has minimum availability.',
          now,
        ),
      );
    } else {
      setDeploymentCondition(
        status,
        newDeploymentCondition(
          'Available',
          'False',
          REASONS.minimumReplicasUnavailable,
          'Deployment does not have minimum availability.',
          now,
        ),
      );
    }
    return status;
  }
}

/** Sets the Deployment's revision annotation; reports a change. */
export function setDeploymentRevision(d: Deployment, rev: string): boolean {
  if (d.metadata?.annotations?.[REVISION_ANNOTATION] === rev) return false;
  d.metadata = { ...d.metadata, annotations: { ...d.metadata?.annotations, [REVISION_ANNOTATION]: rev } };
  return true;
}

/** The only active ReplicaSet, or the newest when none is active (FindActiveOrLatest). */
function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => -byCreation(a, b));
  const active = filterActiveReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** The new ReplicaSet runs all replicas, available (IsSaturated). */
function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  return (
    replicasOf(rs) === want(d) &&
    intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION) === want(d) &&
    (rs.status?.availableReplicas ?? 0) === want(d)
  );
}

/** This ReplicaSet's share of a proportional scale (GetProportion). */
function getProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (want(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = want(d) + maxSurge(d);
  const annotated = intAnnotation(rs, MAX_REPLICAS_ANNOTATION) ?? d.status?.replicas ?? 0;
  if (annotated === 0) return 0;
  return Math.round((replicasOf(rs) * deploymentReplicas) / annotated) - replicasOf(rs);
}
