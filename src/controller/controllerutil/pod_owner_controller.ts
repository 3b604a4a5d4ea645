/**
 * PodOwnerController: what the controllers that create and delete pods for
 * their objects (ReplicaSet, Job, DaemonSet) each set up beside the queue —
 * the pods client and informer (indexed by controller uid), the event
 * recorder, and UID-tracking expectations on the injected clock.
 */
import { RESOURCES, type EventRecorder, type ResourceClient, type SharedInformer } from '../../client/index.js';
import type { Pod } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { ensureControllerUIDIndex } from './controller_index.js';
import { UIDTrackingControllerExpectations } from './expectations.js';
import { QueueController, type QueueWorkerOptions } from './queue_controller.js';

/** A QueueController whose objects own pods, with expectations guarding its creates and deletes. */
export abstract class PodOwnerController extends QueueController {
  readonly expectations: UIDTrackingControllerExpectations;
  protected readonly clock: Clock;
  protected readonly podClient: ResourceClient<Pod>;
  protected readonly podInformer: SharedInformer<Pod>;
  protected readonly recorder: EventRecorder;

  constructor(name: string, ctx: ControllerContext, workerOpts: QueueWorkerOptions) {
    super(name, ctx, workerOpts);
    this.clock = ctx.clock;
    this.expectations = new UIDTrackingControllerExpectations(this.clock);
    this.podClient = ctx.client.resource<Pod>(RESOURCES.pods);
    this.recorder = ctx.events.newRecorder({ component: name });
    this.podInformer = ctx.informers.informerFor<Pod>(RESOURCES.pods);
    ensureControllerUIDIndex(this.podInformer);
  }
}
