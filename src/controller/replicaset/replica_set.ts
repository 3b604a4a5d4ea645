/**
 * ReplicaSetController, like pkg/controller/replicaset/replica_set.go: keeps
 * `spec.replicas` active pods matching a ReplicaSet's selector. It claims
 * pods by controller ownerReference (adopting orphans, releasing strays),
 * creates missing pods in slow-start batches and deletes surplus ones in
 * parallel, at most burstReplicas per sync, and tracks expectations so a
 * lagging pod informer never makes it act twice. Status carries replicas,
 * ready and available counts.
 */
import {
  fromLabelSelector,
  type LabelSelector,
  type Pod,
  type PodSpec,
  type ReplicaSet,
  type ReplicationController,
} from '../../api/index.js';
import {
  isNotFoundError,
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  unwrapDeleted,
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import {
  compareForDeletion,
  ControllerRefManager,
  enqueueOnChange,
  PodExpectationsController,
  filterActivePods,
  getControllerOf,
  isPodReady,
  KIND_REPLICASET,
  newControllerRef,
  ownedAndOrphans,
  resolveControllerRef,
  slowStartBatch,
  errMessage,
} from '../controllerutil/index.js';
import { SLOW_START_INITIAL_BATCH_SIZE, type ReplicaSetControllerOptions } from './config.js';
import { calculateStatus, updateReplicaSetStatus } from './replica_set_utils.js';

/** The controller's name for --controllers. */
export const REPLICASET_CONTROLLER = 'replicaset-controller';
/** The ReplicationController controller's name for --controllers. */
export const REPLICATIONCONTROLLER_CONTROLLER = 'replicationcontroller-controller';

/**
 * What the controller manages, like upstream's NewBaseController arguments: ReplicaSets, or (as upstream's
 * ReplicationManager runs this same controller) ReplicationControllers, whose selector is a plain label map.
 */
export interface ReplicaSetKind {
  controllerName: string;
  kind: { apiVersion: string; kind: string };
  resource: (typeof RESOURCES)[keyof typeof RESOURCES];
  selector(obj: ReplicaSet): LabelSelector | undefined;
}

/** ReplicaSets (apps/v1). */
export const REPLICASET_KIND: ReplicaSetKind = {
  controllerName: REPLICASET_CONTROLLER,
  kind: KIND_REPLICASET,
  resource: RESOURCES.replicasets,
  selector: (rs) => rs.spec?.selector,
};

/** ReplicationControllers (v1): spec.selector is a label map, read as matchLabels. */
export const REPLICATIONCONTROLLER_KIND: ReplicaSetKind = {
  controllerName: REPLICATIONCONTROLLER_CONTROLLER,
  kind: { apiVersion: 'v1', kind: 'ReplicationController' },
  resource: RESOURCES.replicationcontrollers,
  selector: (rc) => {
    const sel = (rc as ReplicationController).spec?.selector;
    return sel === undefined ? undefined : { matchLabels: sel };
  },
};

/** Reconciles ReplicaSets with their pods. */
export class ReplicaSetController extends PodExpectationsController {
  protected readonly syncHandler = (key: string): Promise<void> => this.syncReplicaSet(key);
  private readonly rsLister: Lister<ReplicaSet>;
  private readonly rsClient: ResourceClient<ReplicaSet>;

  constructor(
    ctx: ControllerContext,
    private readonly opts: ReplicaSetControllerOptions = ctx.config.replicaSet,
    private readonly kind: ReplicaSetKind = REPLICASET_KIND,
  ) {
    super(kind.controllerName, ctx, { workers: opts.concurrentRSSyncs });
    this.rsClient = ctx.client.resource<ReplicaSet>(kind.resource);
    const rsInformer = ctx.informers.informerFor<ReplicaSet>(kind.resource);
    this.rsLister = rsInformer.lister();
    enqueueOnChange(rsInformer, this.queue, (key) => this.expectations.deleteExpectations(key));
    this.podInformer.addEventHandler({
      onAdd: (p) => this.addPod(p),
      onUpdate: (old, p) => this.updatePod(old, p),
      onDelete: (p) => this.deletePod(unwrapDeleted(p)),
    });
  }

  /** The ReplicaSets whose selector matches an orphan pod (getPodReplicaSets). */
  private podReplicaSets(pod: Pod): ReplicaSet[] {
    return this.rsLister
      .namespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((rs) => {
        const sel = fromSelectorOrNothing(this.kind.selector(rs));
        return !sel.empty && sel.matches(pod.metadata?.labels);
      });
  }

  private addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp !== undefined) {
      // Restarted controller: a pod already on its way out counts as a deletion, never as a creation.
      this.deletePod(pod);
      return;
    }
    if (getControllerOf(pod) !== undefined) {
      const rs = resolveControllerRef(this.rsLister, this.kind.kind.kind, pod);
      if (rs === undefined) return;
      this.expectations.creationObserved(metaNamespaceKeyFunc(rs));
      this.queue.add(metaNamespaceKeyFunc(rs));
      return;
    }
    for (const rs of this.podReplicaSets(pod)) this.queue.add(metaNamespaceKeyFunc(rs));
  }

  private updatePod(old: Pod, cur: Pod): void {
    if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(cur.metadata?.labels ?? {});
    if (cur.metadata?.deletionTimestamp !== undefined) {
      this.deletePod(cur);
      if (labelsChanged) this.deletePod(old);
      return;
    }
    const oldRef = getControllerOf(old);
    const curRef = getControllerOf(cur);
    const refChanged = oldRef?.uid !== curRef?.uid;
    if (refChanged && oldRef !== undefined) {
      const oldRS = resolveControllerRef(this.rsLister, this.kind.kind.kind, old);
      if (oldRS !== undefined) this.queue.add(metaNamespaceKeyFunc(oldRS));
    }
    if (curRef !== undefined) {
      const rs = resolveControllerRef(this.rsLister, this.kind.kind.kind, cur);
      if (rs === undefined) return;
      this.queue.add(metaNamespaceKeyFunc(rs));
      // A pod that just became Ready turns available after minReadySeconds: look again then.
      const minReady = rs.spec?.minReadySeconds ?? 0;
      if (minReady > 0 && !isPodReady(old) && isPodReady(cur))
        this.queue.addAfter(metaNamespaceKeyFunc(rs), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged)
      for (const rs of this.podReplicaSets(cur)) this.queue.add(metaNamespaceKeyFunc(rs));
  }

  private deletePod(pod: Pod): void {
    const rs = resolveControllerRef(this.rsLister, this.kind.kind.kind, pod);
    if (rs === undefined) return;
    this.expectations.deletionObservedOf(metaNamespaceKeyFunc(rs), metaNamespaceKeyFunc(pod));
    this.queue.add(metaNamespaceKeyFunc(rs));
  }

  /** syncReplicaSet: claim pods, create or delete the difference when expectations allow, then write status. */
  async syncReplicaSet(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const rs = this.rsLister.namespace(namespace).get(name);
    if (rs === undefined) {
      this.expectations.deleteExpectations(key);
      return;
    }
    const needsSync = this.expectations.satisfiedExpectations(key);
    const selector = fromSelectorOrNothing(this.kind.selector(rs));
    const candidates = filterActivePods(ownedAndOrphans(this.podInformer.indexer, rs));
    const manager = new ControllerRefManager<Pod>(rs, this.kind.kind, selector, this.podClient, async () =>
      this.rsClient.get(name, { namespace }),
    );
    const { claimed, errors } = await manager.claim(candidates);
    let manageErr: { reason: string; message: string } | undefined;
    let failure: unknown = errors[0];
    if (needsSync && rs.metadata?.deletionTimestamp === undefined) {
      const result = await this.manageReplicas(claimed, rs, key);
      if (result !== undefined) {
        manageErr = result;
        failure ??= new Error(result.message);
      }
    }
    const status = calculateStatus(rs, claimed, manageErr, this.clock.now());
    let updated: ReplicaSet;
    try {
      updated = await updateReplicaSetStatus(this.rsClient, rs, status);
    } catch (err) {
      if (isNotFoundError(err)) return;
      throw err;
    }
    const minReady = updated.spec?.minReadySeconds ?? 0;
    if (
      failure === undefined &&
      minReady > 0 &&
      status.readyReplicas === updated.spec?.replicas &&
      status.availableReplicas !== updated.spec?.replicas
    ) {
      this.queue.addAfter(key, minReady * 1000);
    }
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errMessage(failure));
  }

  /** Creates or deletes pods to reach spec.replicas; returns the failure for the ReplicaFailure condition. */
  private async manageReplicas(
    pods: Pod[],
    rs: ReplicaSet,
    key: string,
  ): Promise<{ reason: string; message: string } | undefined> {
    const diff = pods.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const n = Math.min(-diff, this.opts.burstReplicas);
      this.expectations.expectCreations(key, n);
      const { successes, error } = await slowStartBatch(n, SLOW_START_INITIAL_BATCH_SIZE, () => this.createPod(rs));
      // Creates never attempted or rejected will never be observed.
      for (let i = 0; i < n - successes; i++) this.expectations.creationObserved(key);
      return error === undefined ? undefined : { reason: 'FailedCreate', message: errMessage(error) };
    }
    if (diff > 0) {
      const n = Math.min(diff, this.opts.burstReplicas);
      const victims = this.getPodsToDelete(pods, n);
      this.expectations.expectDeletionsOf(key, victims.map(metaNamespaceKeyFunc));
      let firstErr: unknown;
      await Promise.all(
        victims.map(async (pod) => {
          try {
            await this.podClient.delete(pod.metadata!.name!, { namespace: pod.metadata!.namespace! });
            this.recorder.event(
              { ...rs, ...this.kind.kind },
              'Normal',
              'SuccessfulDelete',
              `Deleted pod: ${pod.metadata!.name!}`,
            );
          } catch (err) {
            // Already gone counts as done; its deletion event arrives through the informer.
            if (isNotFoundError(err)) return;
            this.expectations.deletionObservedOf(key, metaNamespaceKeyFunc(pod));
            this.recorder.event(
              { ...rs, ...this.kind.kind },
              'Warning',
              'FailedDelete',
              `Error deleting: ${errMessage(err)}`,
            );
            firstErr ??= err;
          }
        }),
      );
      if (firstErr !== undefined) return { reason: 'FailedDelete', message: errMessage(firstErr) };
    }
    return undefined;
  }

  private async createPod(rs: ReplicaSet): Promise<void> {
    const t = rs.spec?.template ?? {};
    const md = t.metadata ?? {};
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${rs.metadata!.name!}-`,
        namespace: rs.metadata!.namespace!,
        ...(md.labels !== undefined ? { labels: { ...md.labels } } : {}),
        ...(md.annotations !== undefined ? { annotations: { ...md.annotations } } : {}),
        ...(md.finalizers !== undefined ? { finalizers: [...md.finalizers] } : {}),
        ownerReferences: [newControllerRef(rs, this.kind.kind)],
      },
      // A template without a spec is passed on as is; the API server's validation rejects the pod.
      spec: structuredClone(t.spec ?? ({} as PodSpec)),
    };
    try {
      const created = await this.podClient.create(pod, { namespace: rs.metadata!.namespace! });
      this.recorder.event(
        { ...rs, ...this.kind.kind },
        'Normal',
        'SuccessfulCreate',
        `Created pod: ${created.metadata?.name ?? ''}`,
      );
    } catch (err) {
      this.recorder.event(
        { ...rs, ...this.kind.kind },
        'Warning',
        'FailedCreate',
        `Error creating: ${errMessage(err)}`,
      );
      throw err;
    }
  }

  /** The `n` pods cheapest to lose, ranked by how many of this ReplicaSet's pods share their node. */
  private getPodsToDelete(pods: Pod[], n: number): Pod[] {
    if (n >= pods.length) return pods;
    const perNode = new Map<string, number>();
    for (const p of pods) if (p.spec?.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
    const rank = (p: Pod): number => (p.spec?.nodeName ? (perNode.get(p.spec.nodeName) ?? 0) : 0);
    return [...pods].sort((a, b) => compareForDeletion(a, b, rank(a), rank(b))).slice(0, n);
  }
}

/** A ReplicaSet's selector; a malformed one matches nothing (validation keeps that from happening). */
function fromSelectorOrNothing(selector: LabelSelector | undefined): ReturnType<typeof fromLabelSelector> {
  try {
    return fromLabelSelector(selector);
  } catch {
    return fromLabelSelector(undefined);
  }
}
