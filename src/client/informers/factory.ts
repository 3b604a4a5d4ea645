/**
 * SharedInformerFactory, like client-go's informers.SharedInformerFactory:
 * one informer per resource and scope, shared by every controller (and
 * scheduler plugin) that asks, started together once all of them have
 * registered their handlers and indexes.
 */
import type { KubeObject } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import { listWatchFor, type ListWatchScope } from '../cache/listwatch.js';
import type { Stopper } from '../cache/reflector.js';
import { SharedInformer } from '../cache/shared_informer.js';
import type { IndexFunc } from '../cache/store.js';
import { silentLogger, type ClientLogger } from '../logger.js';
import type { RESTClient } from '../rest/client.js';
import type { GroupVersionResource } from '../rest/resource.js';

/** Informer knobs shared by all informers of a factory. */
export interface SharedInformerFactoryOptions {
  /** The informers' own clock (relist backoff, sync polling); real time unless a test says otherwise. */
  clock?: Clock;
  logger?: ClientLogger;
  /**
   * Applied to every object before it is cached, like informers.WithTransform; kube-controller-manager passes one
   * that drops metadata.managedFields (stripManagedFields), which no controller reads.
   */
  transform?: (obj: KubeObject) => KubeObject;
}

/** Creates, shares, starts and stops informers. */
export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private readonly running = new Map<string, Stopper>();

  constructor(
    readonly client: RESTClient,
    private readonly opts: SharedInformerFactoryOptions = {},
  ) {}

  /** The shared informer of `gvr` within `scope`, created on first use. */
  informerFor<T extends KubeObject>(gvr: GroupVersionResource, scope: ListWatchScope = {}): SharedInformer<T> {
    const key = JSON.stringify([
      gvr.group,
      gvr.resource,
      scope.namespace ?? '',
      scope.labelSelector ?? '',
      scope.fieldSelector ?? '',
    ]);
    let inf = this.informers.get(key);
    if (inf === undefined) {
      inf = new SharedInformer<KubeObject>(listWatchFor(this.client.resource<KubeObject>(gvr), scope), {
        ...(this.opts.clock !== undefined ? { clock: this.opts.clock } : {}),
        logger: this.opts.logger ?? silentLogger,
        reflector: {
          name: gvr.resource,
          ...(this.opts.transform !== undefined ? { transform: this.opts.transform } : {}),
        },
      });
      this.informers.set(key, inf);
    }
    return inf as unknown as SharedInformer<T>;
  }

  /** Adds an index unless one of that name exists, so controllers can share an index such as spec.nodeName. */
  static ensureIndex<T extends KubeObject>(informer: SharedInformer<T>, name: string, fn: IndexFunc<T>): void {
    if (informer.indexer.getIndexers()[name] === undefined) informer.addIndexers({ [name]: fn });
  }

  /** Starts every informer not yet running. */
  start(): void {
    for (const [key, inf] of this.informers) if (!this.running.has(key)) this.running.set(key, inf.run());
  }

  /** Resolves true once every started informer has synced, false when `signal` aborts first. */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    for (const inf of this.informers.values()) if (!(await inf.waitForSync(signal))) return false;
    return true;
  }

  /** Stops every informer. */
  async shutdown(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((s) => s.stop()));
  }
}
