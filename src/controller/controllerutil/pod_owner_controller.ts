/**
 * PodOwnerController: what the controllers that create and delete pods for
 * their objects (ReplicaSet, Job, DaemonSet, StatefulSet) each set up beside
 * the queue — the pods client and informer (indexed by controller uid) and
 * the event recorder. PodExpectationsController adds UID-tracking
 * expectations on the injected clock, for the controllers whose pod names are
 * generated (all but StatefulSet, whose fixed names make a racing create end
 * in AlreadyExists instead).
 */
import { RESOURCES, type EventRecorder, type ResourceClient, type SharedInformer } from '../../client/index.js';
import type { Pod } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { ensureControllerUIDIndex } from './controller_index.js';
import { UIDTrackingControllerExpectations } from './expectations.js';
import { QueueController, type QueueWorkerOptions } from './queue_controller.js';

/** A QueueController whose objects own pods. */
export abstract class PodOwnerController extends QueueController {
  protected readonly clock: Clock;
  protected readonly podClient: ResourceClient<Pod>;
  protected readonly podInformer: SharedInformer<Pod>;
  protected readonly recorder: EventRecorder;

  constructor(name: string, ctx: ControllerContext, workerOpts: QueueWorkerOptions) {
    super(name, ctx, workerOpts);
    this.clock = ctx.clock;
    this.podClient = ctx.client.resource<Pod>(RESOURCES.pods);
    this.recorder = ctx.events.newRecorder({ component: name });
    this.podInformer = ctx.informers.informerFor<Pod>(RESOURCES.pods);
    ensureControllerUIDIndex(this.podInformer);
  }
}

/** A PodOwnerController with expectations guarding its creates and deletes. */
export abstract class PodExpectationsController extends PodOwnerController {
  readonly expectations: UIDTrackingControllerExpectations;

  constructor(name: string, ctx: ControllerContext, workerOpts: QueueWorkerOptions) {
    super(name, ctx, workerOpts);
    this.expectations = new UIDTrackingControllerExpectations(this.clock);
  }
}
