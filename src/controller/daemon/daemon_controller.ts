/**
 * DaemonSetsController, like pkg/controller/daemon/daemon_controller.go:
 * keeps one pod of each DaemonSet on every node that should run it. Each
 * sync records the current template as a ControllerRevision, creates pods
 * for nodes without one (bound by node affinity, placed by the default
 * scheduler) and deletes pods on nodes that may no longer keep them, at most
 * burstReplicas per sync and guarded by expectations; then rolls old pods
 * forward under maxUnavailable/maxSurge (RollingUpdate) or leaves them
 * (OnDelete), trims history and writes the status counts. Node events only
 * queue the DaemonSets whose verdict for that node changed, so heartbeats of
 * thousands of nodes cost nothing.
 */
import {
  fromLabelSelector,
  type ControllerRevision,
  type DaemonSet,
  type Node,
  type Pod,
  type PodSpec,
} from '../../api/index.js';
import {
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
  PodExpectationsController,
  ensureControllerUIDIndex,
  getControllerOf,
  newControllerRef,
  ownedAndOrphans,
  resolveControllerRef,
  slowStartBatch,
  selectorOrNothing,
  updateStatusIfChanged,
  errMessage,
  nameOf,
} from '../controllerutil/index.js';
import { CONTROLLER_REVISION_HASH_LABEL, parentHistory, truncateHistory } from '../history/index.js';
import type { DaemonSetControllerOptions } from './config.js';
import { daemonSetStatusCounts, podsShouldBeOnNode, rollingUpdatePlan } from './update.js';
import { daemonPodTolerations, nodeNameAffinity, nodeShouldRunDaemonPod, targetNodeName } from './util.js';

/** The controller's name for --controllers. */
export const DAEMONSET_CONTROLLER = 'daemonset-controller';

/** apps/v1 DaemonSet's apiVersion and kind. */
export const KIND_DAEMONSET = { apiVersion: 'apps/v1', kind: 'DaemonSet' } as const;

/** Reconciles DaemonSets with their pods and nodes. */
export class DaemonSetsController extends PodExpectationsController {
  protected readonly syncHandler = (key: string): Promise<void> => this.syncDaemonSet(key);
  private readonly dsLister: Lister<DaemonSet>;
  private readonly nodeLister: Lister<Node>;
  private readonly historyInformer: SharedInformer<ControllerRevision>;
  private readonly dsClient: ResourceClient<DaemonSet>;
  private readonly historyClient: ResourceClient<ControllerRevision>;

  constructor(
    ctx: ControllerContext,
    private readonly opts: DaemonSetControllerOptions = ctx.config.daemonSet,
  ) {
    super(DAEMONSET_CONTROLLER, ctx, { workers: opts.concurrentDaemonSetSyncs });
    this.dsClient = ctx.client.resource<DaemonSet>(RESOURCES.daemonsets);
    this.historyClient = ctx.client.resource<ControllerRevision>(RESOURCES.controllerrevisions);
    const dsInformer = ctx.informers.informerFor<DaemonSet>(RESOURCES.daemonsets);
    this.dsLister = dsInformer.lister();
    enqueueOnChange(dsInformer, this.queue, (key) => {
      this.expectations.deleteExpectations(key);
      this.queue.add(key);
    });
    const nodeInformer = ctx.informers.informerFor<Node>(RESOURCES.nodes);
    this.nodeLister = nodeInformer.lister();
    nodeInformer.addEventHandler({
      onAdd: (n) => this.nodeChanged(undefined, n),
      onUpdate: (old, n) => this.nodeChanged(old, n),
      onDelete: () => this.enqueueAll(),
    });
    this.historyInformer = ctx.informers.informerFor<ControllerRevision>(RESOURCES.controllerrevisions);
    ensureControllerUIDIndex(this.historyInformer);
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podChanged(p, 'add'),
      onUpdate: (old, p) => {
        if (old.metadata?.resourceVersion !== p.metadata?.resourceVersion)
          this.podChanged(p, p.metadata?.deletionTimestamp !== undefined ? 'delete' : 'update');
      },
      onDelete: (p) => this.podChanged(unwrapDeleted(p), 'delete'),
    });
  }

  private enqueueAll(): void {
    for (const ds of this.dsLister.list()) this.queue.add(metaNamespaceKeyFunc(ds));
  }

  /** A node added, or changed in what decides placement (labels, taints): queue the DaemonSets whose verdict moved. */
  private nodeChanged(old: Node | undefined, node: Node): void {
    if (
      old !== undefined &&
      JSON.stringify(old.metadata?.labels ?? {}) === JSON.stringify(node.metadata?.labels ?? {}) &&
      JSON.stringify(old.spec?.taints ?? []) === JSON.stringify(node.spec?.taints ?? [])
    )
      return;
    for (const ds of this.dsLister.list()) {
      const should = nodeShouldRunDaemonPod(ds);
      const now = should(node);
      const before = old === undefined ? undefined : should(old);
      if (
        before === undefined
          ? now.shouldRun
          : before.shouldRun !== now.shouldRun || before.shouldContinueRunning !== now.shouldContinueRunning
      )
        this.queue.add(metaNamespaceKeyFunc(ds));
    }
  }

  private podChanged(pod: Pod, how: 'add' | 'update' | 'delete'): void {
    const ds = resolveControllerRef(this.dsLister, KIND_DAEMONSET.kind, pod);
    if (ds === undefined) {
      // An orphan whose labels a DaemonSet selects may be adopted.
      if (getControllerOf(pod) === undefined && how !== 'delete')
        for (const d of this.dsLister.namespace(pod.metadata?.namespace ?? '').list())
          if (selectorOrNothing(d).matches(pod.metadata?.labels)) this.queue.add(metaNamespaceKeyFunc(d));
      return;
    }
    const key = metaNamespaceKeyFunc(ds);
    if (how === 'add') this.expectations.creationObserved(key);
    if (how === 'delete') this.expectations.deletionObservedOf(key, metaNamespaceKeyFunc(pod));
    this.queue.add(key);
  }

  /** syncDaemonSet: history, then manage and roll when expectations allow, then status. */
  async syncDaemonSet(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const ds = this.dsLister.namespace(namespace).get(name);
    if (ds === undefined) {
      this.expectations.deleteExpectations(key);
      return;
    }
    const selector = selectorOrNothing(ds);
    if (selector.empty) {
      this.recorder.event(
        { ...ds, ...KIND_DAEMONSET },
        'Warning',
        'SelectingAll',
        'This daemon set is selecting all pods. A non-empty selector is required.',
      );
      return;
    }
    // A DaemonSet on its way out is left to the garbage collector.
    if (ds.metadata?.deletionTimestamp !== undefined) return;
    const owned = this.historyInformer.indexer.byIndex(CONTROLLER_UID_INDEX, ds.metadata?.uid ?? '');
    const history = await parentHistory(this.historyClient, this.dsClient, ds, KIND_DAEMONSET, owned);
    const hash = history.current.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
    const nodes = [...this.nodeLister.list()].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    const shouldRun = nodeShouldRunDaemonPod(ds);
    let nodeToPods = await this.nodesToDaemonPods(ds, selector);
    let failure: unknown;
    if (this.expectations.satisfiedExpectations(key)) {
      try {
        await this.manage(ds, key, nodes, nodeToPods, hash);
        if (
          this.expectations.satisfiedExpectations(key) &&
          (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate'
        ) {
          const desired = nodes.filter((n) => shouldRun(n).shouldRun).length;
          const plan = rollingUpdatePlan(ds, nodeToPods, desired, hash, this.clock.now());
          await this.syncNodes(ds, key, plan.delete, plan.createOn, hash);
        }
        const inUse = new Set<string>();
        for (const pods of nodeToPods.values())
          for (const p of pods) inUse.add(p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '');
        await truncateHistory(this.historyClient, history.old, ds.spec?.revisionHistoryLimit ?? 10, inUse);
      } catch (err) {
        failure = err;
      }
      nodeToPods = await this.nodesToDaemonPods(ds, selector);
    }
    const counts = daemonSetStatusCounts(ds, nodes, shouldRun, nodeToPods, hash, this.clock.now());
    await updateStatusIfChanged(this.dsClient, ds, { ...counts });
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && counts.numberReady !== counts.numberAvailable) this.queue.addAfter(key, minReady * 1000);
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(errMessage(failure));
  }

  /** The DaemonSet's pods (claimed, adopting orphans) by the node they are for; pods for no node are dropped. */
  private async nodesToDaemonPods(
    ds: DaemonSet,
    selector: ReturnType<typeof fromLabelSelector>,
  ): Promise<Map<string, Pod[]>> {
    const { namespace, name } = splitMetaNamespaceKey(metaNamespaceKeyFunc(ds));
    const manager = new ControllerRefManager<Pod>(ds, KIND_DAEMONSET, selector, this.podClient, async () =>
      this.dsClient.get(name, { namespace }),
    );
    const { claimed } = await manager.claim(ownedAndOrphans(this.podInformer.indexer, ds));
    const out = new Map<string, Pod[]>();
    for (const p of claimed) {
      // Deleted pods that already finished count for nothing (getNodesToDaemonPods without includeDeletedTerminal).
      if (p.metadata?.deletionTimestamp !== undefined && ['Succeeded', 'Failed'].includes(p.status?.phase ?? ''))
        continue;
      const node = targetNodeName(p);
      if (node === undefined) continue;
      const list = out.get(node);
      if (list === undefined) out.set(node, [p]);
      else list.push(p);
    }
    return out;
  }

  /** manage: create pods where missing, delete where not wanted, and drop unscheduled pods for vanished nodes. */
  private async manage(
    ds: DaemonSet,
    key: string,
    nodes: readonly Node[],
    nodeToPods: ReadonlyMap<string, Pod[]>,
    hash: string,
  ): Promise<void> {
    const shouldRun = nodeShouldRunDaemonPod(ds);
    const now = this.clock.now();
    const create: string[] = [];
    const del: Pod[] = [];
    const seen = new Set<string>();
    for (const node of nodes) {
      const n = nameOf(node);
      seen.add(n);
      const d = podsShouldBeOnNode(nodeToPods.get(n) ?? [], shouldRun(node), ds, hash, now);
      if (d.create) create.push(n);
      del.push(...d.delete);
    }
    for (const [n, pods] of nodeToPods)
      if (!seen.has(n))
        for (const p of pods) if (!p.spec?.nodeName && p.metadata?.deletionTimestamp === undefined) del.push(p);
    await this.syncNodes(ds, key, del, create, hash);
  }

  /** syncNodes: deletes and creates (at most burstReplicas each), with expectations set first. */
  private async syncNodes(ds: DaemonSet, key: string, del: Pod[], createOn: string[], hash: string): Promise<void> {
    const creates = createOn.slice(0, this.opts.burstReplicas);
    const deletes = del.slice(0, this.opts.burstReplicas);
    if (creates.length === 0 && deletes.length === 0) return;
    this.expectations.expectDeletionsOf(key, deletes.map(metaNamespaceKeyFunc));
    this.expectations.raiseExpectations(key, creates.length, 0);
    let firstErr: unknown;
    let i = 0;
    const { successes, error } = await slowStartBatch(creates.length, 1, () => this.createPod(ds, creates[i++], hash));
    firstErr ??= error;
    for (let k = successes; k < creates.length; k++) this.expectations.creationObserved(key);
    await Promise.all(
      deletes.map(async (pod) => {
        try {
          await this.podClient.delete(nameOf(pod), { namespace: pod.metadata!.namespace! });
          this.recorder.event(
            { ...ds, ...KIND_DAEMONSET },
            'Normal',
            'SuccessfulDelete',
            `Deleted pod: ${nameOf(pod)}`,
          );
        } catch (err) {
          this.expectations.deletionObservedOf(key, metaNamespaceKeyFunc(pod));
          if (isNotFoundError(err)) return;
          this.recorder.event(
            { ...ds, ...KIND_DAEMONSET },
            'Warning',
            'FailedDelete',
            `Error deleting: ${errMessage(err)}`,
          );
          firstErr ??= err;
        }
      }),
    );
    if (firstErr !== undefined) throw firstErr instanceof Error ? firstErr : new Error(errMessage(firstErr));
  }

  /** A daemon pod for `nodeName`: the template, the revision's hash label, default tolerations, node affinity. */
  private async createPod(ds: DaemonSet, nodeName: string, hash: string): Promise<void> {
    const t = ds.spec?.template ?? {};
    const md = t.metadata ?? {};
    const spec = structuredClone(t.spec ?? ({} as PodSpec));
    spec.tolerations = daemonPodTolerations(spec);
    spec.affinity = nodeNameAffinity(spec.affinity, nodeName);
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${nameOf(ds)}-`,
        namespace: ds.metadata!.namespace!,
        labels: { ...(md.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
        ...(md.annotations !== undefined ? { annotations: { ...md.annotations } } : {}),
        ownerReferences: [newControllerRef(ds, KIND_DAEMONSET)],
      },
      spec,
    };
    try {
      const created = await this.podClient.create(pod, { namespace: ds.metadata!.namespace! });
      this.recorder.event(
        { ...ds, ...KIND_DAEMONSET },
        'Normal',
        'SuccessfulCreate',
        `Created pod: ${nameOf(created)}`,
      );
    } catch (err) {
      this.recorder.event(
        { ...ds, ...KIND_DAEMONSET },
        'Warning',
        'FailedCreate',
        `Error creating: ${errMessage(err)}`,
      );
      throw err;
    }
  }
}
