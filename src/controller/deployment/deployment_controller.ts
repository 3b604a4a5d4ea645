/**
 * DeploymentController, like pkg/controller/deployment/deployment_controller.go:
 * watches Deployments, their ReplicaSets and pods, claims ReplicaSets by
 * controller ownerReference, and drives each Deployment by its strategy
 * (RollingUpdate or Recreate), or just scales it for a scaling event or
 * while paused. Status, conditions and revisions are what kubectl rollout
 * status, history and undo read.
 */
import { fromLabelSelector, type Deployment, type Pod, type ReplicaSet } from '../../api/index.js';
import {
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  unwrapDeleted,
  type Lister,
  type ResourceClient,
  type SharedInformer,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import {
  CONTROLLER_UID_INDEX,
  ControllerRefManager,
  enqueueOnChange,
  QueueController,
  ensureControllerUIDIndex,
  getControllerOf,
  KIND_DEPLOYMENT,
  ownedAndOrphans,
  resolveControllerRef,
} from '../controllerutil/index.js';
import { deepCopy } from '../nodeutil/index.js';
import { getDeploymentCondition, newDeploymentCondition, REASONS, setDeploymentCondition } from './conditions.js';
import type { DeploymentControllerOptions } from './config.js';
import { rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import { DeploymentSyncer } from './sync.js';

/** The controller's name for --controllers. */
export const DEPLOYMENT_CONTROLLER = 'deployment-controller';

/** Rolls Deployments out through ReplicaSets. */
export class DeploymentController extends QueueController {
  readonly syncer: DeploymentSyncer;
  protected readonly syncHandler = (key: string): Promise<void> => this.syncDeployment(key);
  private readonly dLister: Lister<Deployment>;
  private readonly rsInformer: SharedInformer<ReplicaSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly dClient: ResourceClient<Deployment>;
  private readonly rsClient: ResourceClient<ReplicaSet>;

  constructor(ctx: ControllerContext, opts: DeploymentControllerOptions = ctx.config.deployment) {
    super(DEPLOYMENT_CONTROLLER, ctx, { workers: opts.concurrentDeploymentSyncs, maxRetries: 15 });
    this.dClient = ctx.client.resource<Deployment>(RESOURCES.deployments);
    this.rsClient = ctx.client.resource<ReplicaSet>(RESOURCES.replicasets);
    const dInformer = ctx.informers.informerFor<Deployment>(RESOURCES.deployments);
    this.dLister = dInformer.lister();
    this.rsInformer = ctx.informers.informerFor<ReplicaSet>(RESOURCES.replicasets);
    this.podInformer = ctx.informers.informerFor<Pod>(RESOURCES.pods);
    ensureControllerUIDIndex(this.rsInformer);
    ensureControllerUIDIndex(this.podInformer);
    const rsLister = this.rsInformer.lister();
    this.syncer = new DeploymentSyncer({
      deployments: this.dClient,
      replicaSets: this.rsClient,
      rsLister: (ns) => rsLister.namespace(ns),
      recorder: ctx.events.newRecorder({ component: DEPLOYMENT_CONTROLLER }),
      clock: ctx.clock,
    });
    enqueueOnChange(dInformer, this.queue);
    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.replicaSetChanged(undefined, rs),
      onUpdate: (old, rs) => this.replicaSetChanged(old, rs),
      onDelete: (rs) => this.enqueueOwner(unwrapDeleted(rs)),
    });
    this.podInformer.addEventHandler({ onDelete: (p) => this.podDeleted(unwrapDeleted(p)) });
  }

  private enqueueOwner(rs: ReplicaSet): void {
    const d = resolveControllerRef(this.dLister, KIND_DEPLOYMENT.kind, rs);
    if (d !== undefined) this.queue.add(metaNamespaceKeyFunc(d));
  }

  private replicaSetChanged(old: ReplicaSet | undefined, rs: ReplicaSet): void {
    if (old !== undefined && old.metadata?.resourceVersion === rs.metadata?.resourceVersion) return;
    if (old !== undefined && getControllerOf(old)?.uid !== getControllerOf(rs)?.uid) this.enqueueOwner(old);
    if (getControllerOf(rs) !== undefined) {
      this.enqueueOwner(rs);
      return;
    }
    // An orphan: every Deployment that selects it may adopt it.
    for (const d of this.dLister.namespace(rs.metadata?.namespace ?? '').list()) {
      const sel = safeSelector(d);
      if (!sel.empty && sel.matches(rs.metadata?.labels)) this.queue.add(metaNamespaceKeyFunc(d));
    }
  }

  /** A Recreate rollout waits for old pods to go; their deletion wakes it (deletePod). */
  private podDeleted(pod: Pod): void {
    const rs = resolveControllerRef(this.rsInformer.lister(), 'ReplicaSet', pod);
    if (rs === undefined) return;
    const d = resolveControllerRef(this.dLister, KIND_DEPLOYMENT.kind, rs);
    if (d?.spec?.strategy?.type === 'Recreate') this.queue.add(metaNamespaceKeyFunc(d));
  }

  /** syncDeployment: claim ReplicaSets, then pause, scale, or roll out by strategy. */
  async syncDeployment(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.dLister.namespace(namespace).get(name);
    if (cached === undefined) return;
    // `original` is only read, and its metadata and status are replaced whole (never changed in place), so a shallow copy does.
    const original: Deployment = { ...cached };
    const d = deepCopy(cached);
    const selector = safeSelector(d);
    if (selector.empty) {
      this.syncer.event(
        d,
        'Warning',
        'SelectingAll',
        'This deployment is selecting all pods. A non-empty selector is required.',
      );
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        d.status = { ...d.status, observedGeneration: d.metadata?.generation ?? 0 };
        await this.syncer.updateDeploymentStatus(d, original);
      }
      return;
    }
    const manager = new ControllerRefManager<ReplicaSet>(d, KIND_DEPLOYMENT, selector, this.rsClient, async () =>
      this.dClient.get(name, { namespace }),
    );
    const { claimed: rsList, errors } = await manager.claim(ownedAndOrphans(this.rsInformer.indexer, d));
    if (errors.length > 0) throw errors[0] instanceof Error ? errors[0] : new Error('claiming replica sets failed');
    if (d.metadata?.deletionTimestamp !== undefined) {
      const { newRS, oldRSs } = await this.syncer.getAllReplicaSetsAndSyncRevision(d, original, rsList, false);
      await this.syncer.syncDeploymentStatus([...oldRSs, newRS], newRS, d, original);
      return;
    }
    await this.checkPausedConditions(d, original);
    let requeueMs: number | undefined;
    if (d.spec?.paused === true || (await this.syncer.isScalingEvent(d, original, rsList))) {
      await this.syncer.sync(d, original, rsList);
    } else if (d.spec?.strategy?.type === 'Recreate') {
      requeueMs = await rolloutRecreate(this.syncer, d, original, rsList, this.podMap(rsList));
    } else {
      requeueMs = await rolloutRolling(this.syncer, d, original, rsList);
    }
    if (requeueMs !== undefined) this.queue.addAfter(key, requeueMs);
  }

  /** Sets Progressing to DeploymentPaused or DeploymentResumed as spec.paused changes (checkPausedConditions). */
  private async checkPausedConditions(d: Deployment, original: Deployment): Promise<void> {
    if (d.spec?.progressDeadlineSeconds === undefined) return;
    const cond = getDeploymentCondition(d.status, 'Progressing');
    if (cond?.reason === REASONS.timedOut) return;
    const pausedCond = cond?.reason === REASONS.paused;
    const now = this.syncer.deps.clock.now();
    const status = (d.status ??= {});
    if (d.spec.paused === true && !pausedCond) {
      setDeploymentCondition(
        status,
        newDeploymentCondition('Progressing', 'Unknown', REASONS.paused, 'Deployment is paused', now),
      );
    } else if (d.spec.paused !== true && pausedCond) {
      setDeploymentCondition(
        status,
        newDeploymentCondition('Progressing', 'Unknown', REASONS.resumed, 'Deployment is resumed', now),
      );
    } else {
      return;
    }
    await this.syncer.updateDeploymentStatus(d, original);
  }

  /** The Deployment's pods by their ReplicaSet's uid (getPodMapForDeployment). */
  private podMap(rsList: ReplicaSet[]): Map<string, Pod[]> {
    const map = new Map<string, Pod[]>();
    for (const rs of rsList)
      map.set(rs.metadata!.uid!, this.podInformer.indexer.byIndex(CONTROLLER_UID_INDEX, rs.metadata!.uid!));
    return map;
  }
}

function safeSelector(d: Deployment): ReturnType<typeof fromLabelSelector> {
  try {
    return fromLabelSelector(d.spec?.selector ?? {});
  } catch {
    return fromLabelSelector(undefined);
  }
}
