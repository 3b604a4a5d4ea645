/**
 * One Cacher per resource prefix over a shared storage, presented as one
 * Storage for the whole keyspace: keys and prefixes under a cached resource go
 * to its Cacher, everything else straight to storage. Like kube-apiserver's
 * --watch-cache-sizes, `resource#0` leaves one resource uncached; with
 * --watch-cache=false the API server simply does not build a registry.
 */
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageStatus,
  TryUpdate,
  WatchOptions,
  Watcher,
} from '../interface.js';
import type { ObjectCodec } from './cached_object.js';
import { Cacher } from './cacher.js';
import type { CacherMetrics } from './metrics.js';
import type { CacheReadOptions, CacherOptions } from './options.js';
import type { Indexer } from './watch_cache.js';

/** One resource to cache. */
export interface ResourceCacheConfig {
  /** Its key prefix, e.g. '/registry/pods/'. */
  prefix: string;
  /** Its name as --watch-cache-sizes spells it: 'pods', or 'deployments.apps' (default: the prefix's last segment). */
  resource?: string;
  indexers?: Indexer[];
  codec?: ObjectCodec;
  /** Where its delegated reads go (see CacherOptions.readStorage). */
  readStorage?: Storage;
}

/** Settings shared by every Cacher of a registry. */
export type CacherDefaults = Omit<CacherOptions, 'storage' | 'resourcePrefix' | 'resource' | 'indexers' | 'codec'>;

/** How to build a CacherRegistry. */
export interface CacherRegistryOptions {
  storage: Storage;
  resources?: ResourceCacheConfig[];
  /** Parsed --watch-cache-sizes; a size of 0 disables the cache of that resource (other sizes are ignored: capacity adapts, as upstream). */
  watchCacheSizes?: Map<string, number>;
  /** Cache every `<root><resource>/` prefix on first use, not only configured ones (tests and the conformance suite). */
  cacheUnknownPrefixes?: boolean;
  /** The key root, default '/registry/'. */
  root?: string;
  defaults?: CacherDefaults;
}

/** Parses --watch-cache-sizes: comma-separated `resource[.group]#size`. */
export function parseWatchCacheSizes(flag: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of flag.split(',')) {
    const e = entry.trim();
    if (e === '') continue;
    const [name, size, ...rest] = e.split('#');
    if (rest.length > 0 || name === '' || size === undefined || !/^\d+$/.test(size))
      throw new Error(`invalid value of watch cache size: ${e}`);
    out.set(name, Number(size));
  }
  return out;
}

/**
 * Resources served from storage unless --watch-cache-sizes gives them a size:
 * Events, as upstream (its event registry is undecorated storage). They are
 * many, rarely read, and expire after --event-ttl, so a cache of them costs
 * memory (about 2 KiB per Event, bench/servermem) for no read it serves often.
 */
export const UNCACHED_BY_DEFAULT: ReadonlySet<string> = new Set(['events', 'events.events.k8s.io']);

/** A Storage for the whole keyspace that routes each resource to its own Cacher. */
export class CacherRegistry implements Storage {
  private readonly byPrefix = new Map<string, Cacher>();
  private readonly uncached = new Set<string>();
  private readonly root: string;
  private closed = false;

  constructor(private readonly opts: CacherRegistryOptions) {
    this.root = opts.root ?? '/registry/';
    for (const r of opts.resources ?? []) this.build(r);
  }

  /** The underlying storage. */
  get storage(): Storage {
    return this.opts.storage;
  }

  /** The Cacher serving a key or prefix, or undefined when storage serves it directly. */
  cacherFor(keyOrPrefix: string): Cacher | undefined {
    const prefix = this.resourcePrefixOf(keyOrPrefix);
    if (prefix === undefined) return undefined;
    const c = this.byPrefix.get(prefix);
    if (c !== undefined || this.uncached.has(prefix) || this.opts.cacheUnknownPrefixes !== true || this.closed)
      return c;
    return this.build({ prefix });
  }

  /**
   * Caches a resource added at run time (a custom resource): its Cacher, built now unless one
   * already serves the prefix, or undefined when --watch-cache-sizes turns it off.
   */
  addResource(r: ResourceCacheConfig): Cacher | undefined {
    if (this.closed || this.uncached.has(r.prefix)) return undefined;
    return this.byPrefix.get(r.prefix) ?? this.build(r);
  }

  /** Stops caching a resource removed at run time; its open watches end. */
  async removeResource(prefix: string): Promise<void> {
    const c = this.byPrefix.get(prefix);
    this.byPrefix.delete(prefix);
    this.uncached.delete(prefix);
    await c?.close();
  }

  /** Every Cacher built so far. */
  cachers(): Cacher[] {
    return [...this.byPrefix.values()];
  }

  /** Resolves once every Cacher built so far holds its initial list (for readiness). */
  async ready(): Promise<void> {
    await Promise.all(this.cachers().map((c) => c.ready()));
  }

  /** Metrics of every Cacher, one entry per resource. */
  metrics(): CacherMetrics[] {
    return this.cachers().map((c) => c.metrics());
  }

  currentRevision(): Promise<number> {
    return this.opts.storage.currentRevision();
  }
  get(key: string, opts?: GetOptions & CacheReadOptions): Promise<KeyValue> {
    return (this.cacherFor(key) ?? this.opts.storage).get(key, opts);
  }
  list(prefix: string, opts?: ListOptions & CacheReadOptions): Promise<ListResult> {
    return (this.cacherFor(prefix) ?? this.opts.storage).list(prefix, opts);
  }
  create(key: string, value: Buffer, opts?: CreateOptions): Promise<KeyValue> {
    // Through the key's Cacher (built now for a new prefix, so its first reads find it ready).
    return (this.cacherFor(key) ?? this.opts.storage).create(key, value, opts);
  }
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: GuaranteedUpdateOptions): Promise<KeyValue> {
    // The key's Cacher offers its copy as the first attempt's starting point.
    return (this.cacherFor(key) ?? this.opts.storage).guaranteedUpdate(key, tryUpdate, opts);
  }
  delete(key: string, opts?: DeleteOptions): Promise<KeyValue> {
    return this.opts.storage.delete(key, opts);
  }
  watch(prefix: string, opts?: WatchOptions): Watcher {
    return (this.cacherFor(prefix) ?? this.opts.storage).watch(prefix, opts);
  }
  /** Compacts storage and tells every Cacher, so Storage-contract reads below it fail with Expired. */
  async compact(revision: number): Promise<void> {
    await this.opts.storage.compact(revision);
    for (const c of this.byPrefix.values()) c.noteCompacted(revision);
  }
  async status(): Promise<StorageStatus> {
    const st = await this.opts.storage.status();
    for (const c of this.byPrefix.values()) c.noteCompacted(st.compactedRevision);
    return st;
  }
  disarmAlarms(): Promise<void> {
    return this.opts.storage.disarmAlarms();
  }
  defragment(): Promise<void> {
    return this.opts.storage.defragment();
  }
  /** Stops every Cacher, then closes storage. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.cachers().map((c) => c.close()));
    await this.opts.storage.close();
  }

  /** The `<root><resource>/` prefix a key or prefix falls under, or undefined above that level. */
  private resourcePrefixOf(keyOrPrefix: string): string | undefined {
    for (const p of this.byPrefix.keys()) if (keyOrPrefix.startsWith(p)) return p;
    for (const p of this.uncached) if (keyOrPrefix.startsWith(p)) return p;
    if (!keyOrPrefix.startsWith(this.root)) return undefined;
    const slash = keyOrPrefix.indexOf('/', this.root.length);
    return slash < 0 ? undefined : keyOrPrefix.slice(0, slash + 1);
  }

  private build(r: ResourceCacheConfig): Cacher | undefined {
    if (!r.prefix.endsWith('/')) throw new Error(`cached resource prefix must end with '/': ${r.prefix}`);
    const resource =
      r.resource ??
      r.prefix
        .split('/')
        .filter((s) => s !== '')
        .pop() ??
      r.prefix;
    const size = this.opts.watchCacheSizes?.get(resource);
    if (size === 0 || (size === undefined && UNCACHED_BY_DEFAULT.has(resource))) {
      this.uncached.add(r.prefix);
      return undefined;
    }
    const c = new Cacher({
      ...this.opts.defaults,
      storage: this.opts.storage,
      resourcePrefix: r.prefix,
      resource,
      ...(r.indexers === undefined ? {} : { indexers: r.indexers }),
      ...(r.codec === undefined ? {} : { codec: r.codec }),
      ...(r.readStorage === undefined ? {} : { readStorage: r.readStorage }),
    });
    this.byPrefix.set(r.prefix, c);
    return c;
  }
}
