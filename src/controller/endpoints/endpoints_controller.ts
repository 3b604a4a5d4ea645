/**
 * EndpointsController, like kube-controller-manager's pkg/controller/endpoint:
 * the legacy `Endpoints` object of each selector Service, one object holding
 * every address. It is rewritten whole on any change (which is why watching
 * it costs N² traffic in big clusters), capped at 1,000 addresses with the
 * `endpoints.kubernetes.io/over-capacity: truncated` annotation.
 */
import {
  isNotFoundError,
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  type EventRecorder,
  type Indexer,
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { QueueController } from '../controllerutil/index.js';
import {
  ANNOTATION_LAST_CHANGE_TRIGGER_TIME,
  ANNOTATION_OVER_CAPACITY,
  LABEL_HEADLESS,
  selectedPods,
  serviceSelector,
  TriggerTimeTracker,
  watchServicesAndPods,
  type EndpointControllerStats,
} from '../endpointutil/index.js';
import { OVER_CAPACITY_TRUNCATED, type EndpointsControllerOptions } from './config.js';
import { StaleEndpointsTracker } from './stale_endpoints_tracker.js';
import { computeSubsets, truncateSubsets } from './subsets.js';
import { formatTimestamp, type Endpoints, type Pod, type Service } from '../../api/index.js';

/** The controller's name for --controllers. */
export const ENDPOINTS_CONTROLLER = 'endpoints-controller';
/** A Service is dropped from the queue after this many failed syncs. */
const MAX_RETRIES = 15;
/** A Service that found the Endpoints cache behind its own write is looked at again after this long, if no Endpoints event came first. */
const STALE_CACHE_RECHECK_MS = 1_000;

const withoutTriggerTime = (a: Record<string, string> | undefined): string => {
  const { [ANNOTATION_LAST_CHANGE_TRIGGER_TIME]: _t, ...rest } = a ?? {};
  return JSON.stringify(Object.entries(rest).sort());
};

/** Counts of the controller's work, for tests and benchmarks. */
export type EndpointsControllerStats = EndpointControllerStats;

/** Maintains the Endpoints object of every Service with a selector. */
export class EndpointsController extends QueueController {
  readonly stats: EndpointsControllerStats = { syncs: 0, creates: 0, updates: 0, deletes: 0, staleCacheRetries: 0 };
  protected readonly syncHandler = (key: string): Promise<void> => this.syncService(key);
  private readonly endpoints: ResourceClient<Endpoints>;
  private readonly serviceLister: Lister<Service>;
  private readonly serviceIndexer: Indexer<Service>;
  private readonly podIndexer: Indexer<Pod>;
  private readonly endpointsLister: Lister<Endpoints>;
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly staleEndpoints = new StaleEndpointsTracker();
  /** Services whose last sync found the Endpoints cache behind our own write. */
  private readonly waitingForCache = new Set<string>();
  private readonly recorder: EventRecorder;

  constructor(
    ctx: ControllerContext,
    private readonly opts: EndpointsControllerOptions = ctx.config.endpoints,
  ) {
    super(ENDPOINTS_CONTROLLER, ctx, { workers: opts.concurrentEndpointSyncs, maxRetries: MAX_RETRIES });
    this.endpoints = ctx.client.resource<Endpoints>(RESOURCES.endpoints);
    this.recorder = ctx.events.newRecorder({ component: 'endpoint-controller' });
    ({
      serviceLister: this.serviceLister,
      serviceIndexer: this.serviceIndexer,
      podIndexer: this.podIndexer,
    } = watchServicesAndPods(ctx.informers, this.queue, opts.endpointUpdatesBatchPeriodMs));
    const endpointsInformer = ctx.informers.informerFor<Endpoints>(RESOURCES.endpoints);
    this.endpointsLister = endpointsInformer.lister();
    // The event that brings the cache past our own write wakes the Service that waited for it.
    const cacheCaughtUp = (e: Endpoints): void => {
      const key = metaNamespaceKeyFunc(e);
      if (this.waitingForCache.delete(key)) this.queue.add(key);
    };
    endpointsInformer.addEventHandler({
      onAdd: cacheCaughtUp,
      onUpdate: (_o, e) => cacheCaughtUp(e),
      onDelete: (e) => {
        const key = metaNamespaceKeyFunc(e);
        this.staleEndpoints.delete(key);
        if (this.waitingForCache.delete(key)) this.queue.add(key);
      },
    });
  }

  /** syncService: computes the Service's Endpoints and writes it when it differs. */
  async syncService(key: string): Promise<void> {
    this.stats.syncs++;
    const { namespace, name } = splitMetaNamespaceKey(key);
    const svc = this.serviceLister.get(key);
    if (svc === undefined) {
      // Unlike slices, Endpoints carry no owner reference: the controller deletes them itself.
      this.triggerTimes.deleteService(key);
      this.staleEndpoints.delete(key);
      this.waitingForCache.delete(key);
      try {
        await this.endpoints.delete(name, { namespace });
        this.stats.deletes++;
      } catch (err) {
        if (!isNotFoundError(err)) throw err;
      }
      return;
    }
    const selector = serviceSelector(svc);
    // Services without a selector have user-managed Endpoints; ExternalName Services have none.
    if (selector === undefined || svc.spec?.type === 'ExternalName') return;
    const current = this.endpointsLister.namespace(namespace).get(name);
    if (current !== undefined && this.staleEndpoints.isStale(key, current)) {
      // Upstream returns an error and retries with backoff; as the EndpointSlice controller here, wait for the
      // Endpoints event that catches the cache up (or the recheck), since this is no failure.
      this.stats.staleCacheRetries++;
      this.waitingForCache.add(key);
      this.queue.addAfter(key, STALE_CACHE_RECHECK_MS);
      return;
    }
    const pods = selectedPods(this.podIndexer, svc, selector);
    const subsets = computeSubsets(svc, pods);
    const truncated = truncateSubsets(subsets);
    const triggerTime = this.triggerTimes.computeEndpointLastChangeTriggerTime(key, svc, pods);
    const labels: Record<string, string> = { ...svc.metadata?.labels };
    if (svc.spec?.clusterIP === 'None') labels[LABEL_HEADLESS] = '';
    else delete labels[LABEL_HEADLESS];
    const annotations: Record<string, string> = { ...current?.metadata?.annotations };
    if (truncated) annotations[ANNOTATION_OVER_CAPACITY] = OVER_CAPACITY_TRUNCATED;
    else delete annotations[ANNOTATION_OVER_CAPACITY];
    if (
      current !== undefined &&
      JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) &&
      JSON.stringify(Object.entries(current.metadata?.labels ?? {}).sort()) ===
        JSON.stringify(Object.entries(labels).sort()) &&
      withoutTriggerTime(current.metadata?.annotations) === withoutTriggerTime(annotations)
    )
      return;
    if (triggerTime !== undefined) annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME] = formatTimestamp(triggerTime);
    else delete annotations[ANNOTATION_LAST_CHANGE_TRIGGER_TIME];
    // Upstream's Go types omit an empty labels or annotations map on the wire (omitempty); so do we.
    const metadata: NonNullable<Endpoints['metadata']> = { ...current?.metadata, name, namespace, labels, annotations };
    if (Object.keys(labels).length === 0) delete metadata.labels;
    if (Object.keys(annotations).length === 0) delete metadata.annotations;
    const next: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata, subsets };
    const ref = { ...svc, apiVersion: 'v1', kind: 'Service' };
    if (current === undefined) {
      try {
        await this.endpoints.create(next, { namespace });
        this.stats.creates++;
      } catch (err) {
        this.recorder.event(
          ref,
          'Warning',
          'FailedToCreateEndpoint',
          `Failed to create endpoint for service ${key}: ${(err as Error).message}`,
        );
        throw err;
      }
      return;
    }
    try {
      await this.endpoints.update(next, { namespace });
      this.staleEndpoints.stale(key, current);
      this.stats.updates++;
    } catch (err) {
      this.recorder.event(
        ref,
        'Warning',
        'FailedToUpdateEndpoint',
        `Failed to update endpoint ${key}: ${(err as Error).message}`,
      );
      throw err;
    }
  }
}
