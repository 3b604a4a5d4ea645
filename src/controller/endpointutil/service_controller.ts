/**
 * ServiceEndpointsController: what the Endpoints and EndpointSlice controllers
 * share as upstream's two controllers do — a queue of Service keys fed by the
 * Service and pod informers, trigger-time tracking, an event recorder, and
 * the wait for an informer cache that is behind the controller's own write.
 */
import type { Pod, Service } from '../../api/index.js';
import type { EventRecorder, Indexer, Lister } from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import { QueueController, type QueueWorkerOptions } from '../controllerutil/index.js';
import { watchServicesAndPods } from './informers.js';
import { serviceSelector } from './service.js';
import type { EndpointControllerStats } from './stats.js';
import { TriggerTimeTracker } from './trigger_time_tracker.js';

/** A Service that found its cache behind its own write is looked at again after this long, if no event came first. */
const STALE_CACHE_RECHECK_MS = 1_000;

/** The base of the two endpoint controllers: subclasses write their own objects in syncHandler. */
export abstract class ServiceEndpointsController extends QueueController {
  readonly stats: EndpointControllerStats = { syncs: 0, creates: 0, updates: 0, deletes: 0, staleCacheRetries: 0 };
  protected readonly serviceLister: Lister<Service>;
  protected readonly serviceIndexer: Indexer<Service>;
  protected readonly podIndexer: Indexer<Pod>;
  protected readonly triggerTimes = new TriggerTimeTracker();
  protected readonly recorder: EventRecorder;
  /** Services whose last sync found the informer cache behind our own write. */
  private readonly waitingForCache = new Set<string>();

  constructor(
    name: string,
    ctx: ControllerContext,
    workerOpts: QueueWorkerOptions,
    opts: { podBatchPeriodMs: number; recorderComponent: string },
  ) {
    super(name, ctx, workerOpts);
    this.recorder = ctx.events.newRecorder({ component: opts.recorderComponent });
    ({
      serviceLister: this.serviceLister,
      serviceIndexer: this.serviceIndexer,
      podIndexer: this.podIndexer,
    } = watchServicesAndPods(ctx.informers, this.queue, opts.podBatchPeriodMs));
  }

  /** The Service's selector when the controller manages its endpoints (a selector, and not ExternalName). */
  protected managedSelector(svc: Service): Record<string, string> | undefined {
    return svc.spec?.type === 'ExternalName' ? undefined : serviceSelector(svc);
  }

  /**
   * Parks `key` until the event that catches the cache up (cacheCaughtUp) or a recheck. Upstream returns an
   * error and retries with backoff; under heavy pod churn those retries reach maxRetries and drop the Service,
   * and waiting is no failure.
   */
  protected waitForCache(key: string): void {
    this.stats.staleCacheRetries++;
    this.waitingForCache.add(key);
    this.queue.addAfter(key, STALE_CACHE_RECHECK_MS);
  }

  /** Called on an event of the controller's own objects: true when `key` was waiting for it (and is requeued). */
  protected cacheCaughtUp(key: string): boolean {
    if (!this.waitingForCache.delete(key)) return false;
    this.queue.add(key);
    return true;
  }

  /** Drops the per-Service state this base keeps, for a deleted Service. */
  protected forgetService(key: string): void {
    this.triggerTimes.deleteService(key);
    this.waitingForCache.delete(key);
  }
}
