/**
 * TaintEvictionController, like kube-controller-manager's
 * pkg/controller/tainteviction: watches nodes' NoExecute taints and pods'
 * tolerations. A pod that does not tolerate every NoExecute taint of its node
 * is deleted at once; one that tolerates them for a while is deleted after the
 * shortest tolerationSeconds; one that tolerates them forever stays. Removing
 * the taints (node recovery) cancels a pending deletion.
 */
import {
  isNotFoundError,
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  type ClientLogger,
  type Lister,
  type ResourceClient,
  type SharedInformer,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';
import { SharedInformerFactory } from '../../client/index.js';
import { POD_NODE_NAME_INDEX, podNodeNameIndex } from '../nodelifecycle/node_lifecycle_controller.js';
import { deepCopy, minTolerationTimeMs, noExecuteTaints, taintEqual, updateCondition } from '../nodeutil/index.js';
import { TimedWorkerQueue } from './timed_workers.js';
import {
  formatTimestamp,
  getMatchingTolerations,
  type Node,
  type Pod,
  type Taint,
  type Toleration,
} from '../../api/index.js';

/** The controller's name for --controllers. */
export const TAINT_EVICTION_CONTROLLER = 'taint-eviction-controller';
/** Attempts of one pod deletion, like upstream's retries. */
const DELETE_RETRIES = 5;

/** Deletes pods from NoExecute-tainted nodes per their tolerations. */
export class TaintEvictionController implements Controller {
  readonly name = TAINT_EVICTION_CONTROLLER;
  /** Pods deleted so far (upstream's taint_eviction_controller pod deletions metric). */
  deletions = 0;
  private readonly queue: TimedWorkerQueue;
  private readonly pods: ResourceClient<Pod>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly podLister: Lister<Pod>;
  private readonly nodeLister: Lister<Node>;
  private readonly clock: Clock;
  private readonly log: ClientLogger;
  private started = false;

  constructor(ctx: ControllerContext) {
    this.clock = ctx.clock;
    this.log = ctx.logger;
    this.pods = ctx.client.resource<Pod>(RESOURCES.pods);
    const nodeInformer = ctx.informers.informerFor<Node>(RESOURCES.nodes);
    this.nodeLister = nodeInformer.lister();
    this.podInformer = ctx.informers.informerFor<Pod>(RESOURCES.pods);
    this.podLister = this.podInformer.lister();
    SharedInformerFactory.ensureIndex(this.podInformer, POD_NODE_NAME_INDEX, podNodeNameIndex);
    this.queue = new TimedWorkerQueue(this.clock, (key) => this.deletePod(key), this.log);
    nodeInformer.addEventHandler({
      onAdd: (n) => this.nodeUpdated(n.metadata!.name!),
      onUpdate: (old, n) => {
        if (!sameTaints(noExecuteTaints(old.spec?.taints), noExecuteTaints(n.spec?.taints)))
          this.nodeUpdated(n.metadata!.name!);
      },
      onDelete: (n) => this.nodeUpdated(metaNamespaceKeyFunc(n)),
    });
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podUpdated(undefined, p),
      onUpdate: (old, p) => this.podUpdated(old, p),
      onDelete: (p) => void this.queue.cancelWork(metaNamespaceKeyFunc(p)),
    });
  }

  /** Starts acting on events; events before run() are caught up at once. */
  run(): void {
    this.started = true;
    for (const node of this.nodeLister.list()) this.nodeUpdated(node.metadata!.name!);
  }

  /** Cancels every pending deletion. */
  async stop(): Promise<void> {
    this.started = false;
    this.queue.cancelAll();
  }

  /** True when no deletion is running. */
  isIdle(): boolean {
    return this.queue.running === 0;
  }

  private podUpdated(old: Pod | undefined, pod: Pod): void {
    if (!this.started || !pod.spec?.nodeName) return;
    if (
      old !== undefined &&
      old.spec?.nodeName === pod.spec.nodeName &&
      JSON.stringify(old.spec?.tolerations) === JSON.stringify(pod.spec.tolerations)
    )
      return;
    const node = this.nodeLister.get(pod.spec.nodeName);
    this.processPodOnNode(
      key(pod),
      pod.spec.nodeName,
      pod.spec.tolerations,
      noExecuteTaints(node?.spec?.taints),
      this.clock.now(),
    );
  }

  private nodeUpdated(nodeName: string): void {
    if (!this.started) return;
    const taints = noExecuteTaints(this.nodeLister.get(nodeName)?.spec?.taints);
    const pods = this.podInformer.indexer.byIndex(POD_NODE_NAME_INDEX, nodeName);
    const now = this.clock.now();
    for (const pod of pods) this.processPodOnNode(key(pod), nodeName, pod.spec?.tolerations, taints, now);
  }

  /** processPodOnNode: schedules, keeps or cancels the pod's deletion for the node's NoExecute taints. */
  private processPodOnNode(
    podKey: string,
    nodeName: string,
    tolerations: Toleration[] | undefined,
    taints: Taint[],
    now: number,
  ): void {
    if (taints.length === 0) {
      if (this.queue.cancelWork(podKey))
        this.log.info({ pod: podKey, node: nodeName }, 'cancelling pod eviction: node no longer tainted');
      return;
    }
    const { allTolerated, used } = getMatchingTolerations(taints, tolerations);
    if (!allTolerated) {
      this.log.info({ pod: podKey, node: nodeName }, 'pod does not tolerate all NoExecute taints: deleting it');
      this.queue.cancelWork(podKey);
      this.queue.addWork(podKey, now, now);
      return;
    }
    const min = minTolerationTimeMs(used);
    if (min < 0) {
      this.queue.cancelWork(podKey);
      return;
    }
    let start = now;
    const trigger = now + min;
    const scheduled = this.queue.getWorkerUnsafe(podKey);
    if (scheduled) {
      start = scheduled.createdAt;
      // An earlier deadline already set stays; tolerations only ever shorten it.
      if (start + min < trigger) return;
      this.queue.cancelWork(podKey);
    }
    this.queue.addWork(podKey, start, trigger);
  }

  /** addConditionAndDeletePod: DisruptionTarget=True on pods/status, then DELETE with the pod's grace period. */
  private async deletePod(podKey: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(podKey);
    // A pod already terminating is not deleted again: its grace period runs on.
    if (this.podLister.namespace(namespace).get(name)?.metadata?.deletionTimestamp !== undefined) return;
    let lastErr: unknown;
    for (let attempt = 0; attempt < DELETE_RETRIES; attempt++) {
      try {
        const pod = deepCopy(await this.pods.get(name, { namespace }));
        pod.status ??= {};
        pod.status.conditions ??= [];
        const cond = {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'DeletionByTaintManager',
          message: 'Taint manager: deleting due to NoExecute taint',
        };
        if (updateCondition(pod.status.conditions, cond, formatTimestamp(this.clock.now())))
          await this.pods.updateStatus(pod);
        await this.pods.delete(name, { namespace });
        this.deletions++;
        this.log.info({ pod: podKey }, 'taint eviction: pod deleted');
        return;
      } catch (err) {
        if (isNotFoundError(err)) return;
        lastErr = err;
      }
    }
    throw lastErr;
  }
}

function key(pod: Pod): string {
  return `${pod.metadata?.namespace}/${pod.metadata?.name}`;
}

function sameTaints(a: Taint[], b: Taint[]): boolean {
  return a.length === b.length && a.every((t, i) => taintEqual(t, b[i]!));
}
