/**
 * StatefulSetController, like pkg/controller/statefulset: gives each
 * StatefulSet ordinal pods `<name>-0…n-1` with stable identities. A sync
 * reconciles the ControllerRevision history (currentRevision and
 * updateRevision), claims the set's pods, then acts on planStatefulSet:
 * creates (each new pod on the current revision below the partition, on the
 * update revision above it), deletes beyond the replica count highest first,
 * and rolling-update deletions in reverse ordinal order; finally it writes
 * the status. Pod names are fixed, so a create that races a lagging informer
 * ends in AlreadyExists, which is harmless: no expectations are needed.
 *
 * volumeClaimTemplates: before each pod the controller creates its missing
 * `<template>-<pod>` PersistentVolumeClaims, and every sync keeps the claims'
 * ownerReferences as persistentVolumeClaimRetentionPolicy says (the set owns
 * them under whenDeleted=Delete, a scaled-away pod under whenScaled=Delete),
 * so the garbage collector deletes them; Retain leaves them alone.
 */
import {
  type ControllerRevision,
  type PersistentVolumeClaim,
  type Pod,
  type PodTemplateSpec,
  type StatefulSet,
} from '../../api/index.js';
import {
  isAlreadyExistsError,
  isNotFoundError,
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
  PodOwnerController,
  ensureControllerUIDIndex,
  getControllerOf,
  newControllerRef,
  ownedAndOrphans,
  resolveControllerRef,
  selectorOrNothing,
  updateStatusIfChanged,
  errMessage,
  nameOf,
} from '../controllerutil/index.js';
import { parentHistory, templateOf, truncateHistory } from '../history/index.js';
import type { StatefulSetControllerOptions } from './config.js';
import {
  claimOwnerRefs,
  getPersistentVolumeClaims,
  getPodRevision,
  newStatefulSetPod,
  sameOwners,
  planStatefulSet,
  statefulSetStatus,
  usesCurrentRevision,
} from './stateful_set_utils.js';

/** The controller's name for --controllers. */
export const STATEFULSET_CONTROLLER = 'statefulset-controller';

/** apps/v1 StatefulSet's apiVersion and kind. */
export const KIND_STATEFULSET = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;

/** Reconciles StatefulSets with their ordinal pods. */
export class StatefulSetController extends PodOwnerController {
  protected readonly syncHandler = (key: string): Promise<void> => this.sync(key);
  private readonly setLister: Lister<StatefulSet>;
  private readonly historyInformer: SharedInformer<ControllerRevision>;
  private readonly setClient: ResourceClient<StatefulSet>;
  private readonly historyClient: ResourceClient<ControllerRevision>;
  private readonly claimLister: Lister<PersistentVolumeClaim>;
  private readonly claimClient: ResourceClient<PersistentVolumeClaim>;

  constructor(
    ctx: ControllerContext,
    private readonly opts: StatefulSetControllerOptions = ctx.config.statefulSet,
  ) {
    super(STATEFULSET_CONTROLLER, ctx, { workers: opts.concurrentStatefulSetSyncs });
    this.setClient = ctx.client.resource<StatefulSet>(RESOURCES.statefulsets);
    this.historyClient = ctx.client.resource<ControllerRevision>(RESOURCES.controllerrevisions);
    this.claimClient = ctx.client.resource<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims);
    this.claimLister = ctx.informers.informerFor<PersistentVolumeClaim>(RESOURCES.persistentvolumeclaims).lister();
    const setInformer = ctx.informers.informerFor<StatefulSet>(RESOURCES.statefulsets);
    this.setLister = setInformer.lister();
    enqueueOnChange(setInformer, this.queue);
    this.historyInformer = ctx.informers.informerFor<ControllerRevision>(RESOURCES.controllerrevisions);
    ensureControllerUIDIndex(this.historyInformer);
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podChanged(p),
      onUpdate: (old, p) => old.metadata?.resourceVersion !== p.metadata?.resourceVersion && this.podChanged(p),
      onDelete: (p) => this.podChanged(unwrapDeleted(p)),
    });
  }

  private podChanged(pod: Pod): void {
    const set = resolveControllerRef(this.setLister, KIND_STATEFULSET.kind, pod);
    if (set !== undefined) {
      this.queue.add(metaNamespaceKeyFunc(set));
      return;
    }
    if (getControllerOf(pod) !== undefined) return;
    for (const s of this.setLister.namespace(pod.metadata?.namespace ?? '').list())
      if (selectorOrNothing(s).matches(pod.metadata?.labels)) this.queue.add(metaNamespaceKeyFunc(s));
  }

  /** syncStatefulSet: revisions, claimed pods, one step of the plan, status. */
  async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const set = this.setLister.namespace(namespace).get(name);
    if (set === undefined) return;
    const selector = selectorOrNothing(set);
    if (selector.empty) {
      this.recorder.event(
        { ...set, ...KIND_STATEFULSET },
        'Warning',
        'SelectingAll',
        'This statefulset is selecting all pods. A non-empty selector is required.',
      );
      return;
    }
    const owned = this.historyInformer.indexer.byIndex(CONTROLLER_UID_INDEX, set.metadata?.uid ?? '');
    const history = await parentHistory(this.historyClient, this.setClient, set, KIND_STATEFULSET, owned);
    const update = history.current;
    const updateRevision = nameOf(update);
    const currentName = set.status?.currentRevision;
    const current = history.old.find((r) => nameOf(r) === currentName) ?? update;
    const manager = new ControllerRefManager<Pod>(set, KIND_STATEFULSET, selector, this.podClient, async () =>
      this.setClient.get(name, { namespace }),
    );
    const { claimed } = await manager.claim(ownedAndOrphans(this.podInformer.indexer, set));
    let failure: unknown;
    if (set.metadata?.deletionTimestamp === undefined) {
      try {
        await this.act(set, claimed, current, update);
        const inUse = new Set([nameOf(current), updateRevision, ...claimed.map(getPodRevision)]);
        await truncateHistory(this.historyClient, history.old, set.spec?.revisionHistoryLimit ?? 10, inUse);
      } catch (err) {
        failure = err;
      }
    }
    const status = statefulSetStatus(set, claimed, nameOf(current), updateRevision, this.clock.now());
    await updateStatusIfChanged(this.setClient, set, { ...status });
    const minReady = set.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas) this.queue.addAfter(key, minReady * 1000);
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errMessage(failure));
  }

  private async act(
    set: StatefulSet,
    pods: readonly Pod[],
    current: ControllerRevision,
    update: ControllerRevision,
  ): Promise<void> {
    await this.syncClaims(set, pods);
    const plan = planStatefulSet(set, pods, nameOf(update));
    const currentTemplate: PodTemplateSpec | undefined = templateOf(current) ?? set.spec?.template;
    await Promise.all([
      ...plan.create.map(async (ord) => {
        const onCurrent = usesCurrentRevision(set, ord);
        const pod = newStatefulSetPod(
          set,
          onCurrent ? currentTemplate : set.spec?.template,
          ord,
          nameOf(onCurrent ? current : update),
        );
        pod.metadata!.ownerReferences = [newControllerRef(set, KIND_STATEFULSET)];
        await this.createPersistentVolumeClaims(set, pod);
        await this.createPod(set, pod);
      }),
      ...plan.delete.map(async (pod) => this.deletePod(set, pod)),
    ]);
  }

  /**
   * The claims of the set's existing pods, before any pod is deleted: missing claims of a live pod are created
   * again (createMissingPersistentVolumeClaims), and each claim's ownerReferences follow the retention policy
   * (UpdatePodClaimForRetentionPolicy), so a condemned pod owns its claims before it goes.
   */
  private async syncClaims(set: StatefulSet, pods: readonly Pod[]): Promise<void> {
    if ((set.spec?.volumeClaimTemplates ?? []).length === 0) return;
    await Promise.all(
      pods.map(async (pod) => {
        if (pod.metadata?.deletionTimestamp !== undefined) return;
        for (const want of getPersistentVolumeClaims(set, nameOf(pod))) {
          const have = this.claimLister.namespace(want.metadata!.namespace!).get(nameOf(want));
          if (have === undefined) await this.createClaim(set, pod, want);
          else if (have.metadata?.deletionTimestamp === undefined) await this.updateClaimOwners(set, pod, have);
        }
      }),
    );
  }

  /**
   * createPersistentVolumeClaims: each `<template>-<pod>` claim the pod mounts, created unless it exists, before
   * the pod; a claim being deleted fails the sync until it is gone, as upstream.
   */
  private async createPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    for (const want of getPersistentVolumeClaims(set, nameOf(pod))) {
      const have = this.claimLister.namespace(want.metadata!.namespace!).get(nameOf(want));
      if (have?.metadata?.deletionTimestamp !== undefined) throw new Error(`pvc ${nameOf(have)} is being deleted`);
      if (have === undefined) await this.createClaim(set, pod, want);
    }
  }

  private async createClaim(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim): Promise<void> {
    const owners = claimOwnerRefs(set, pod, claim);
    if (owners.length > 0) claim.metadata!.ownerReferences = owners;
    const [c, p, s] = [nameOf(claim), nameOf(pod), nameOf(set)];
    await this.recordCreate(
      set,
      () => this.claimClient.create(claim, { namespace: claim.metadata!.namespace! }),
      `create Claim ${c} Pod ${p} in StatefulSet ${s} success`,
      `create Claim ${c} for Pod ${p} in StatefulSet ${s} failed`,
    );
  }

  /**
   * One create for the set, with upstream's SuccessfulCreate or FailedCreate event. AlreadyExists is no error: an
   * object the informer has not shown yet, which the next sync sees.
   */
  private async recordCreate(
    set: StatefulSet,
    create: () => Promise<unknown>,
    success: string,
    failure: string,
  ): Promise<void> {
    const ref = { ...set, ...KIND_STATEFULSET };
    try {
      await create();
      this.recorder.event(ref, 'Normal', 'SuccessfulCreate', success);
    } catch (err) {
      if (isAlreadyExistsError(err)) return;
      this.recorder.event(ref, 'Warning', 'FailedCreate', `${failure} error: ${errMessage(err)}`);
      throw err;
    }
  }

  private async updateClaimOwners(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim): Promise<void> {
    const owners = claimOwnerRefs(set, pod, claim);
    if (sameOwners(claim.metadata?.ownerReferences, owners)) return;
    const updated = structuredClone(claim);
    updated.metadata!.ownerReferences = owners;
    if (owners.length === 0) delete updated.metadata!.ownerReferences;
    try {
      await this.claimClient.update(updated, { namespace: claim.metadata!.namespace! });
    } catch (err) {
      if (isNotFoundError(err)) return;
      throw err;
    }
  }

  private async createPod(set: StatefulSet, pod: Pod): Promise<void> {
    const [p, s] = [nameOf(pod), nameOf(set)];
    await this.recordCreate(
      set,
      () => this.podClient.create(pod, { namespace: pod.metadata!.namespace! }),
      `create Pod ${p} in StatefulSet ${s} successful`,
      `create Pod ${p} in StatefulSet ${s} failed`,
    );
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    const ref = { ...set, ...KIND_STATEFULSET };
    try {
      await this.podClient.delete(nameOf(pod), { namespace: pod.metadata!.namespace! });
      this.recorder.event(
        ref,
        'Normal',
        'SuccessfulDelete',
        `delete Pod ${nameOf(pod)} in StatefulSet ${nameOf(set)} successful`,
      );
    } catch (err) {
      if (isNotFoundError(err)) return;
      this.recorder.event(
        ref,
        'Warning',
        'FailedDelete',
        `delete Pod ${nameOf(pod)} in StatefulSet ${nameOf(set)} failed error: ${errMessage(err)}`,
      );
      throw err;
    }
  }
}
