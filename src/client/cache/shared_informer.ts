/**
 * SharedInformer, like client-go's tools/cache/shared_informer.go: one
 * Reflector feeding one Indexer, with any number of event handlers. Unlike
 * upstream there is no DeltaFIFO: JavaScript runs one callback at a time, so
 * the informer applies each change to the indexer and then calls handlers
 * synchronously. A relist is diffed against the cache; objects that vanished
 * are delivered to onDelete as DeletedFinalStateUnknown, as upstream does.
 */
import type { KubeObject } from '../../api/index.js';
import { RealClock, type Clock } from '../../clock/index.js';
import { sleepAbortable } from '../flowcontrol/token_bucket.js';
import { silentLogger, type ClientLogger } from '../logger.js';
import type { ListerWatcher } from './listwatch.js';
import { Lister } from './listers.js';
import { Reflector, type ReflectorOptions, type ReflectorStore, type Stopper } from './reflector.js';
import { byNamespace, DeletedFinalStateUnknown, Indexer, NAMESPACE_INDEX, type Indexers } from './store.js';

/** Callbacks for cache changes, like cache.ResourceEventHandlerFuncs. Handlers must not mutate objects. */
export interface ResourceEventHandler<T> {
  /** A new object; `isInInitialList` is true for objects of the first list (or the replay for late handlers). */
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** A deleted object, or its last known state when the deletion itself was missed. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** A registered handler; remove it to stop receiving events. */
export interface ResourceEventHandlerRegistration {
  remove(): void;
  /** True once this handler has seen the initial state. */
  hasSynced(): boolean;
}

/** SharedInformer knobs. */
export interface SharedInformerOptions<T> {
  /** Extra indexes; the namespace index is always present. */
  indexers?: Indexers<T>;
  clock?: Clock;
  random?: () => number;
  logger?: ClientLogger;
  reflector?: Omit<ReflectorOptions, 'clock' | 'random' | 'logger'>;
}

interface Registration<T> {
  handler: ResourceEventHandler<T>;
  synced: boolean;
}

/** A cache of one collection kept current by list+watch, with handlers and indexes. */
export class SharedInformer<T extends KubeObject = KubeObject> implements ReflectorStore<T> {
  readonly indexer: Indexer<T>;
  private readonly handlers = new Set<Registration<T>>();
  private readonly reflector: Reflector<T>;
  private readonly clock: Clock;
  private readonly log: ClientLogger;
  private synced = false;
  private running: Stopper | undefined;

  constructor(lw: ListerWatcher<T>, opts: SharedInformerOptions<T> = {}) {
    // The namespace index is always there, as with upstream's informer factories, so namespaced listers never scan.
    this.indexer = new Indexer<T>({ [NAMESPACE_INDEX]: byNamespace, ...opts.indexers });
    this.clock = opts.clock ?? new RealClock();
    this.log = opts.logger ?? silentLogger;
    this.reflector = new Reflector(lw, this, {
      ...opts.reflector,
      clock: this.clock,
      random: opts.random ?? Math.random,
      logger: this.log,
    });
  }

  /** Registers handlers; when the cache is already synced, the current objects are replayed as adds. */
  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    const reg: Registration<T> = { handler, synced: false };
    this.handlers.add(reg);
    if (this.synced) {
      for (const obj of this.indexer.list()) this.call(reg, 'onAdd', () => handler.onAdd?.(obj, true));
      reg.synced = true;
    }
    return { remove: () => void this.handlers.delete(reg), hasSynced: () => reg.synced };
  }

  /** Adds indexes; allowed at any time. */
  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  /** A Lister over this informer's cache. */
  lister(): Lister<T> {
    return new Lister(this.indexer);
  }

  /** True once the first list has been applied. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The RV of the last list, event or bookmark. */
  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /** Reflector counters (lists, watches, expired, failures). */
  get stats(): Readonly<Reflector<T>['stats']> {
    return this.reflector.stats;
  }

  /** Starts list+watch; the handle stops it. */
  run(): Stopper {
    if (this.running !== undefined) throw new Error('informer already running');
    const r = this.reflector.run();
    const stop = async (): Promise<void> => {
      await r.stop();
      this.running = undefined;
    };
    this.running = { stop, [Symbol.asyncDispose]: stop };
    return this.running;
  }

  /** Resolves true once synced, or false when `signal` aborts first; polls on the clock like cache.WaitForCacheSync. */
  async waitForSync(signal?: AbortSignal, pollMs = 10): Promise<boolean> {
    while (!this.synced) {
      if (signal?.aborted === true) return false;
      try {
        await sleepAbortable(this.clock, pollMs, signal);
      } catch {
        return false;
      }
    }
    return true;
  }

  replace(items: T[], _resourceVersion: string): void {
    const initial = !this.synced;
    const seen = new Set<string>();
    const changes: (() => void)[] = [];
    for (const obj of items) {
      const key = this.indexer.keyFunc(obj);
      seen.add(key);
      const old = this.indexer.getByKey(key);
      if (old === undefined) changes.push(() => this.dispatch((h) => h.onAdd?.(obj, initial), 'onAdd'));
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
        changes.push(() => this.dispatch((h) => h.onUpdate?.(old, obj), 'onUpdate'));
    }
    for (const key of this.indexer.listKeys()) {
      if (seen.has(key)) continue;
      const gone = new DeletedFinalStateUnknown(key, this.indexer.getByKey(key)!);
      changes.push(() => this.dispatch((h) => h.onDelete?.(gone), 'onDelete'));
    }
    this.indexer.replace(items);
    for (const c of changes) c();
    if (initial) {
      this.synced = true;
      for (const reg of this.handlers) reg.synced = true;
    }
  }

  add(obj: T): void {
    const old = this.indexer.get(obj);
    this.indexer.add(obj);
    // A watch may re-deliver an object the list already had (ADDED after a selector change); report it as an update.
    if (old === undefined) this.dispatch((h) => h.onAdd?.(obj, false), 'onAdd');
    else this.dispatch((h) => h.onUpdate?.(old, obj), 'onUpdate');
  }

  update(obj: T): void {
    const old = this.indexer.get(obj);
    this.indexer.update(obj);
    if (old === undefined) this.dispatch((h) => h.onAdd?.(obj, false), 'onAdd');
    else this.dispatch((h) => h.onUpdate?.(old, obj), 'onUpdate');
  }

  delete(obj: T): void {
    this.indexer.delete(obj);
    this.dispatch((h) => h.onDelete?.(obj), 'onDelete');
  }

  private dispatch(fn: (h: ResourceEventHandler<T>) => void, what: string): void {
    for (const reg of this.handlers) this.call(reg, what, () => fn(reg.handler));
  }

  /** Runs one handler; a throwing (or rejecting) handler is logged and never stops the informer. */
  private call(_reg: Registration<T>, what: string, fn: () => unknown): void {
    try {
      const r = fn();
      if (r instanceof Promise)
        r.catch((err: unknown) => this.log.warn({ handler: what, err: String(err) }, 'event handler failed'));
    } catch (err) {
      this.log.warn({ handler: what, err: String(err) }, 'event handler failed');
    }
  }
}
