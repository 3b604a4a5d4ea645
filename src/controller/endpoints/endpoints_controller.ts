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
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import {
  ANNOTATION_LAST_CHANGE_TRIGGER_TIME,
  ANNOTATION_OVER_CAPACITY,
  LABEL_HEADLESS,
  selectedPods,
  ServiceEndpointsController,
  type EndpointControllerStats,
} from '../endpointutil/index.js';
import { OVER_CAPACITY_TRUNCATED, type EndpointsControllerOptions } from './config.js';
import { StaleEndpointsTracker } from './stale_endpoints_tracker.js';
import { computeSubsets, truncateSubsets } from './subsets.js';
import { formatTimestamp, type Endpoints } from '../../api/index.js';

/** The controller's name for --controllers. */
export const ENDPOINTS_CONTROLLER = 'endpoints-controller';
/** A Service is dropped from the queue after this many failed syncs. */
const MAX_RETRIES = 15;

const withoutTriggerTime = (a: Record<string, string> | undefined): string => {
  const { [ANNOTATION_LAST_CHANGE_TRIGGER_TIME]: _t, ...rest } = a ?? {};
  return JSON.stringify(Object.entries(rest).sort());
};

/** Counts of the controller's work, for tests and benchmarks. */
export type EndpointsControllerStats = EndpointControllerStats;

/** Maintains the Endpoints object of every Service with a selector. */
export class EndpointsController extends ServiceEndpointsController {
  protected readonly syncHandler = (key: string): Promise<void> => this.syncService(key);
  private readonly endpoints: ResourceClient<Endpoints>;
  private readonly endpointsLister: Lister<Endpoints>;
  private readonly staleEndpoints = new StaleEndpointsTracker();

  constructor(
    ctx: ControllerContext,
    private readonly opts: EndpointsControllerOptions = ctx.config.endpoints,
  ) {
    super(
      ENDPOINTS_CONTROLLER,
      ctx,
      { workers: opts.concurrentEndpointSyncs, maxRetries: MAX_RETRIES },
      { podBatchPeriodMs: opts.endpointUpdatesBatchPeriodMs, recorderComponent: 'endpoint-controller' },
    );
    this.endpoints = ctx.client.resource<Endpoints>(RESOURCES.endpoints);
    const endpointsInformer = ctx.informers.informerFor<Endpoints>(RESOURCES.endpoints);
    this.endpointsLister = endpointsInformer.lister();
    // The event that brings the cache past our own write wakes the Service that waited for it.
    const cacheCaughtUp = (e: Endpoints): void => void this.cacheCaughtUp(metaNamespaceKeyFunc(e));
    endpointsInformer.addEventHandler({
      onAdd: cacheCaughtUp,
      onUpdate: (_o, e) => cacheCaughtUp(e),
      onDelete: (e) => {
        const key = metaNamespaceKeyFunc(e);
        this.staleEndpoints.delete(key);
        this.cacheCaughtUp(key);
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
      this.forgetService(key);
      this.staleEndpoints.delete(key);
      try {
        await this.endpoints.delete(name, { namespace });
        this.stats.deletes++;
      } catch (err) {
        if (!isNotFoundError(err)) throw err;
      }
      return;
    }
    // Services without a selector have user-managed Endpoints; ExternalName Services have none.
    const selector = this.managedSelector(svc);
    if (selector === undefined) return;
    const current = this.endpointsLister.namespace(namespace).get(name);
    if (current !== undefined && this.staleEndpoints.isStale(key, current)) {
      this.waitForCache(key);
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
