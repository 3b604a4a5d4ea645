/**
 * PerNamespaceObjectController: the shape upstream's serviceaccounts and
 * root-ca-cert-publisher controllers share. Each keeps one object of a fixed
 * name in every active namespace: a namespace's add or update queues it, and
 * so does a change or deletion of that object; a worker calls `ensure` with
 * the cached object, if any.
 */
import {
  RateLimitingQueue,
  runWorkers,
  unwrapDeleted,
  type ClientLogger,
  type GroupVersionResource,
  type KubeObject,
  type Lister,
  type Workers,
} from '../../client/index.js';
import { RESOURCES } from '../../client/index.js';
import type { Namespace } from '../../api/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';

/** Creates or repairs the object in one namespace; `current` is the cached one. */
export type EnsureFn<T extends KubeObject> = (namespace: string, current: T | undefined) => Promise<void>;

/** Keeps `objectName` of `gvr` in every namespace that is not terminating. */
export class PerNamespaceObjectController<T extends KubeObject> implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly nsLister: Lister<Namespace>;
  private readonly lister: Lister<T>;
  private readonly log: ClientLogger;
  private workers: Workers | undefined;

  constructor(
    ctx: ControllerContext,
    readonly name: string,
    gvr: GroupVersionResource,
    private readonly objectName: string,
    private readonly ensure: EnsureFn<T>,
  ) {
    this.log = ctx.logger;
    this.queue = new RateLimitingQueue<string>({ clock: ctx.clock, name });
    const namespaces = ctx.informers.informerFor<Namespace>(RESOURCES.namespaces);
    const objects = ctx.informers.informerFor<T>(gvr, { fieldSelector: `metadata.name=${objectName}` });
    this.nsLister = namespaces.lister();
    this.lister = objects.lister();
    const queueNamespace = (n: Namespace): void => this.queue.add(n.metadata?.name ?? '');
    const queueOwner = (o: T): void => this.queue.add(o.metadata?.namespace ?? '');
    namespaces.addEventHandler({ onAdd: queueNamespace, onUpdate: (_o, n) => queueNamespace(n) });
    objects.addEventHandler({ onUpdate: (_o, c) => queueOwner(c), onDelete: (c) => queueOwner(unwrapDeleted(c)) });
  }

  /** Starts one worker, as upstream's controllers do by default. */
  run(): void {
    this.workers = runWorkers(this.queue, 1, (ns) => this.sync(ns), { logger: this.log, name: this.name });
  }

  /** Stops the worker. */
  async stop(): Promise<void> {
    await this.workers?.stop();
  }

  /** True when no namespace is queued or being synced. */
  isIdle(): boolean {
    return this.workers?.idle() ?? this.queue.len() === 0;
  }

  private async sync(namespace: string): Promise<void> {
    const ns = this.nsLister.get(namespace);
    if (ns === undefined || ns.metadata?.deletionTimestamp !== undefined || ns.status?.phase === 'Terminating') return;
    await this.ensure(namespace, this.lister.get(`${namespace}/${this.objectName}`));
  }
}
