/**
 * EndpointSliceController, like kube-controller-manager's
 * pkg/controller/endpointslice: keeps each selector Service's
 * EndpointSlices in line with the pods it selects. Services, pods, nodes and
 * slices come from shared informers; a change queues the Services it
 * touches, and workers reconcile one Service at a time with the fewest
 * slice writes (see reconciler.ts).
 */
import {
  BucketRateLimiter,
  isNotFoundError,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  metaNamespaceKeyFunc,
  RESOURCES,
  unwrapDeleted,
  type Lister,
  type ResourceClient,
  type SharedInformer,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { SharedInformerFactory } from '../../client/index.js';
import {
  ANNOTATION_LAST_CHANGE_TRIGGER_TIME,
  ENDPOINTSLICE_CONTROLLER_MANAGED_BY,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  selectedPods,
  ServiceEndpointsController,
  type EndpointControllerStats,
} from '../endpointutil/index.js';
import { MAX_RETRIES, SYNC_BACKOFF_MS, type EndpointSliceControllerOptions } from './config.js';
import { desiredEndpoints } from './endpoint.js';
import { EndpointSliceTracker } from './endpointslice_tracker.js';
import { applyHints } from './hints.js';
import { reconcile, type ReconcilePlan } from './reconciler.js';
import { hintsMode, TopologyCache } from './topology_cache.js';
import { formatTimestamp, type EndpointSlice, type Node } from '../../api/index.js';

/** The controller's name for --controllers. */
export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller';
/** The slice index by owning Service (`namespace/service-name`). */
export const SLICE_SERVICE_INDEX = 'endpointslice.serviceKey';

const managed = (s: EndpointSlice): boolean =>
  s.metadata?.labels?.[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_MANAGED_BY;
const serviceKeyOfSlice = (s: EndpointSlice): string | undefined => {
  const name = s.metadata?.labels?.[LABEL_SERVICE_NAME];
  return name === undefined || name === '' ? undefined : `${s.metadata?.namespace ?? ''}/${name}`;
};

/** Counts of the controller's work, for tests and benchmarks. */
export type EndpointSliceControllerStats = EndpointControllerStats;

/** Maintains the EndpointSlices of every Service with a selector. */
export class EndpointSliceController extends ServiceEndpointsController {
  protected readonly syncHandler = (key: string): Promise<void> => this.syncService(key);
  private readonly slices: ResourceClient<EndpointSlice>;
  private readonly nodeLister: Lister<Node>;
  private readonly sliceInformer: SharedInformer<EndpointSlice>;
  private readonly tracker = new EndpointSliceTracker();
  private readonly topology = new TopologyCache();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly opts: EndpointSliceControllerOptions = ctx.config.endpointSlice,
  ) {
    super(
      ENDPOINTSLICE_CONTROLLER,
      ctx,
      {
        workers: opts.concurrentServiceEndpointSyncs,
        maxRetries: MAX_RETRIES,
        rateLimiter: new MaxOfRateLimiter(
          new ItemExponentialFailureRateLimiter<string>(SYNC_BACKOFF_MS.base, SYNC_BACKOFF_MS.max),
          new BucketRateLimiter<string>(10, 100, ctx.clock),
        ),
      },
      { podBatchPeriodMs: opts.endpointUpdatesBatchPeriodMs, recorderComponent: 'endpoint-slice-controller' },
    );
    this.slices = ctx.client.resource<EndpointSlice>(RESOURCES.endpointslices);
    const nodes = ctx.informers.informerFor<Node>(RESOURCES.nodes);
    this.sliceInformer = ctx.informers.informerFor<EndpointSlice>(RESOURCES.endpointslices);
    SharedInformerFactory.ensureIndex(this.sliceInformer, SLICE_SERVICE_INDEX, (s) => {
      const k = serviceKeyOfSlice(s);
      return k === undefined ? [] : [k];
    });
    this.nodeLister = nodes.lister();
    nodes.addEventHandler({
      onAdd: () => this.nodesChanged(),
      onUpdate: () => this.nodesChanged(),
      onDelete: () => this.nodesChanged(),
    });
    this.sliceInformer.addEventHandler({
      onAdd: (s) => this.sliceChanged(s, false),
      onUpdate: (_o, s) => this.sliceChanged(s, false),
      onDelete: (s) => this.sliceChanged(unwrapDeleted(s), true),
    });
  }

  /** Starts the workers with the nodes' topology known; informers must have synced. */
  override run(): void {
    this.topology.setNodes(this.nodeLister.list());
    super.run();
  }

  private nodesChanged(): void {
    if (!this.topology.setNodes(this.nodeLister.list())) return;
    for (const svc of this.serviceLister.list())
      if (hintsMode(svc) === 'auto') this.queue.add(metaNamespaceKeyFunc(svc));
  }

  private sliceChanged(slice: EndpointSlice, deleted: boolean): void {
    const key = serviceKeyOfSlice(slice);
    if (key === undefined || !managed(slice)) return;
    const changed = this.tracker.shouldSync(key, slice, deleted);
    if (!this.cacheCaughtUp(key) && changed) this.queue.add(key);
  }

  /** syncService: reconciles one Service's slices. */
  async syncService(key: string): Promise<void> {
    this.stats.syncs++;
    const svc = this.serviceLister.get(key);
    if (svc === undefined) {
      // The slices go with their owner reference (garbage collector); only our own state is dropped.
      this.forgetService(key);
      this.tracker.deleteService(key);
      this.topology.hintsPopulated.delete(key);
      return;
    }
    const selector = this.managedSelector(svc);
    if (selector === undefined) return;
    const existing = this.sliceInformer.indexer.byIndex(SLICE_SERVICE_INDEX, key).filter(managed);
    const stale = this.tracker.stale(key, existing);
    if (stale !== undefined) {
      this.waitForCache(key);
      this.log.debug({ service: key, slice: stale }, 'EndpointSlice informer cache is out of date; waiting');
      return;
    }
    const pods = selectedPods(this.podIndexer, svc, selector);
    const plan = reconcile(
      svc,
      existing,
      desiredEndpoints(svc, pods, (n) => this.nodeLister.get(n)),
      this.opts.maxEndpointsPerSlice,
    );
    const hintsEvent = applyHints(plan, svc, key, this.topology);
    const triggerTime = this.triggerTimes.computeEndpointLastChangeTriggerTime(key, svc, pods);
    const ref = { ...svc, apiVersion: 'v1', kind: 'Service' };
    if (hintsEvent !== undefined) this.recorder.event(ref, hintsEvent.type, hintsEvent.reason, hintsEvent.message);
    try {
      await this.write(key, plan, triggerTime);
    } catch (err) {
      this.recorder.event(
        ref,
        'Warning',
        'FailedToUpdateEndpointSlices',
        `Error updating Endpoint Slices for Service ${key}: ${(err as Error).message}`,
      );
      throw err;
    }
  }

  private async write(key: string, plan: ReconcilePlan, triggerTime: number | undefined): Promise<void> {
    const stamp = (s: EndpointSlice): EndpointSlice => {
      const annotations = { ...s.metadata?.annotations };
      if (triggerTime !== undefined) annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME] = formatTimestamp(triggerTime);
      else delete annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME];
      return { ...s, metadata: { ...s.metadata, annotations } };
    };
    const ns = key.slice(0, key.indexOf('/'));
    for (const s of plan.toCreate) {
      this.tracker.written(key, await this.slices.create(stamp(s), { namespace: ns }));
      this.stats.creates++;
    }
    for (const s of plan.toUpdate) {
      this.tracker.written(key, await this.slices.update(stamp(s), { namespace: ns }));
      this.stats.updates++;
    }
    for (const s of plan.toDelete) {
      await this.slices
        .delete(s.metadata!.name!, { namespace: ns, preconditions: { uid: s.metadata?.uid } })
        .catch((err: unknown) => {
          if (!isNotFoundError(err)) throw err;
        });
      this.tracker.deleted(key, s.metadata!.name!);
      this.stats.deletes++;
    }
  }
}
