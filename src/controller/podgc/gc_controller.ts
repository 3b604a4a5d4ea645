/**
 * PodGCController, like pkg/controller/podgc/gc_controller.go: every
 * gcCheckPeriod it deletes the oldest terminated pods above
 * --terminated-pod-gc-threshold, pods bound to nodes that have stayed gone
 * for the quarantine time (confirmed with a live read; the pod is marked
 * Failed with a DisruptionTarget condition first), and unscheduled pods
 * stuck terminating. Deletions are forced (grace period 0). It reads only
 * from informers, so an idle cluster costs it no API calls.
 */
import { isNotFoundError, RESOURCES, type Lister, type ResourceClient } from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { isPodTerminal } from '../controllerutil/index.js';
import { parallelize, PeriodicController } from '../periodic.js';
import type { PodGCControllerOptions } from './config.js';
import { formatTimestamp, parseTimestamp, type Node, type Pod } from '../../api/index.js';

/** The controller's name for --controllers. */
export const PODGC_CONTROLLER = 'pod-garbage-collector-controller';
/** Deletions in flight at once. */
const DELETE_WORKERS = 50;

/** Deletes pods nobody else will: excess terminated ones and those of deleted nodes. */
export class PodGCController extends PeriodicController {
  protected readonly pass = (): Promise<void> => this.gc();
  readonly name = PODGC_CONTROLLER;
  /** Pods deleted so far, by reason (upstream's pod_gc_collector force_delete_pods_total). */
  readonly deleted = { terminated: 0, orphaned: 0, unscheduledTerminating: 0 };
  private readonly podLister: Lister<Pod>;
  private readonly nodeLister: Lister<Node>;
  private readonly pods: ResourceClient<Pod>;
  private readonly nodes: ResourceClient<Node>;
  private readonly clock: Clock;
  /** Node names seen missing, with when they were first missed (upstream's nodeQueue with quarantine). */
  private readonly missingSince = new Map<string, number>();

  constructor(
    ctx: ControllerContext,
    private readonly opts: PodGCControllerOptions = ctx.config.podGC,
  ) {
    super(ctx, opts.gcCheckPeriodMs, 'podgc');
    this.clock = ctx.clock;
    this.podLister = ctx.informers.informerFor<Pod>(RESOURCES.pods).lister();
    this.nodeLister = ctx.informers.informerFor<Node>(RESOURCES.nodes).lister();
    this.pods = ctx.client.resource<Pod>(RESOURCES.pods);
    this.nodes = ctx.client.resource<Node>(RESOURCES.nodes);
  }

  /** One pass of every collection. */
  async gc(): Promise<void> {
    const pods = this.podLister.list();
    if (this.opts.terminatedPodGCThreshold > 0) await this.gcTerminated(pods);
    await this.gcOrphaned(pods);
    await this.gcUnscheduledTerminating(pods);
  }

  private async gcTerminated(pods: Pod[]): Promise<void> {
    const terminated = pods.filter(isPodTerminal);
    const excess = terminated.length - this.opts.terminatedPodGCThreshold;
    if (excess <= 0) return;
    // Evicted pods first, then the oldest, like upstream's byEvictionAndCreationTimestamp.
    const evicted = (p: Pod): number => (p.status?.reason === 'Evicted' ? 0 : 1);
    terminated.sort(
      (a, b) =>
        evicted(a) - evicted(b) ||
        (parseTimestamp(a.metadata?.creationTimestamp) ?? 0) - (parseTimestamp(b.metadata?.creationTimestamp) ?? 0),
    );
    this.log.info(
      { count: excess, threshold: this.opts.terminatedPodGCThreshold },
      'garbage collecting terminated pods',
    );
    await parallelize(DELETE_WORKERS, terminated.slice(0, excess), async (p) => {
      if (await this.forceDelete(p)) this.deleted.terminated++;
    });
  }

  private async gcOrphaned(pods: Pod[]): Promise<void> {
    const now = this.clock.now();
    const missing = new Set<string>();
    for (const p of pods) {
      const node = p.spec?.nodeName;
      if (node && this.nodeLister.get(node) === undefined) missing.add(node);
    }
    for (const name of this.missingSince.keys()) if (!missing.has(name)) this.missingSince.delete(name);
    const deletedNodes = new Set<string>();
    for (const name of missing) {
      const since = this.missingSince.get(name);
      if (since === undefined) {
        this.missingSince.set(name, now);
        continue;
      }
      if (now - since < this.opts.quarantineMs) continue;
      // The informer may lag: only a live NotFound proves the node is gone.
      try {
        await this.nodes.get(name);
      } catch (err) {
        if (isNotFoundError(err)) deletedNodes.add(name);
      }
    }
    if (deletedNodes.size === 0) return;
    const orphans = pods.filter((p) => deletedNodes.has(p.spec?.nodeName ?? ''));
    await parallelize(DELETE_WORKERS, orphans, async (p) => {
      this.log.info(
        { pod: `${p.metadata?.namespace}/${p.metadata?.name}`, node: p.spec?.nodeName },
        'PodGC is force deleting Pod',
      );
      if (await this.markFailedAndDelete(p, 'PodGC: node no longer exists')) this.deleted.orphaned++;
    });
  }

  private async gcUnscheduledTerminating(pods: Pod[]): Promise<void> {
    const stuck = pods.filter((p) => p.metadata?.deletionTimestamp !== undefined && !p.spec?.nodeName);
    await parallelize(DELETE_WORKERS, stuck, async (p) => {
      if (await this.forceDelete(p)) this.deleted.unscheduledTerminating++;
    });
  }

  /** Marks a running pod Failed with DisruptionTarget (DeletionByPodGC), then force-deletes it. */
  private async markFailedAndDelete(p: Pod, message: string): Promise<boolean> {
    if (!isPodTerminal(p)) {
      const t = formatTimestamp(this.clock.now());
      const patch = {
        status: {
          phase: 'Failed',
          conditions: [
            { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message, lastTransitionTime: t },
          ],
        },
      };
      try {
        await this.pods.patchStatus(p.metadata!.name!, 'strategic', patch, { namespace: p.metadata!.namespace! });
      } catch (err) {
        if (isNotFoundError(err)) return false;
        this.log.warn({ pod: p.metadata?.name, err: (err as Error).message }, 'marking pod failed');
      }
    }
    return this.forceDelete(p);
  }

  private async forceDelete(p: Pod): Promise<boolean> {
    try {
      await this.pods.delete(p.metadata!.name!, {
        namespace: p.metadata!.namespace!,
        gracePeriodSeconds: 0,
        preconditions: { uid: p.metadata!.uid! },
      });
      return true;
    } catch (err) {
      if (!isNotFoundError(err))
        this.log.warn({ pod: p.metadata?.name, err: (err as Error).message }, 'pod gc delete failed');
      return false;
    }
  }
}
