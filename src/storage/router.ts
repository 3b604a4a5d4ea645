/**
 * Routes storage calls by key prefix to one of several stores, like
 * kube-apiserver's --etcd-servers-overrides (for example events on their own
 * etcd, so their write volume never slows the rest of the cluster).
 *
 * Each store has its own revision space. A resource therefore lives in exactly
 * one store, and no list or watch prefix may span stores: a merged stream
 * would interleave two unrelated revision sequences. Store-wide calls
 * (currentRevision, status, compact) refer to the default store; compact the
 * other stores through `stores()`, each at a revision of its own.
 */
import type {
  Freshness,
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
} from './interface.js';

/** One routed prefix, e.g. { prefix: '/registry/events/', storage: eventsStore }. */
export interface StorageRoute {
  /** Must end with '/'. */
  prefix: string;
  storage: Storage;
}

/** A Storage that sends each key to the store owning its prefix, else to the default store. */
export class RoutedStorage implements Storage {
  private readonly routes: StorageRoute[];
  /** The owning store's freshness of a prefix; present only when every store has it. */
  freshness?: (prefix: string, since: number, count: number) => Promise<Freshness>;

  constructor(
    private readonly defaultStore: Storage,
    routes: StorageRoute[],
  ) {
    for (const r of routes) {
      if (!r.prefix.endsWith('/')) throw new Error(`storage route prefix must end with '/': ${r.prefix}`);
      const clash = routes.find((o) => o !== r && o.prefix.startsWith(r.prefix));
      if (clash !== undefined)
        throw new Error(`storage routes may not nest or repeat: ${r.prefix} and ${clash.prefix}`);
    }
    this.routes = [...routes];
    if (this.stores().every((st) => st.freshness !== undefined))
      this.freshness = (prefix, since, count) => this.storeForPrefix(prefix).freshness!(prefix, since, count);
  }

  /** The store that owns `key`. */
  storeFor(key: string): Storage {
    return this.routes.find((r) => key.startsWith(r.prefix))?.storage ?? this.defaultStore;
  }

  /** Every distinct store, the default first; for per-store compaction and health. */
  stores(): Storage[] {
    return [...new Set([this.defaultStore, ...this.routes.map((r) => r.storage)])];
  }

  /** The store for a list or watch prefix; throws when the prefix contains a route, since it would span stores. */
  private storeForPrefix(prefix: string): Storage {
    const owner = this.routes.find((r) => prefix.startsWith(r.prefix));
    if (owner !== undefined) return owner.storage;
    const inner = this.routes.find((r) => r.prefix.startsWith(prefix));
    if (inner !== undefined)
      throw new Error(`prefix ${prefix} spans storage routes (${inner.prefix} lives in another store)`);
    return this.defaultStore;
  }

  currentRevision(): Promise<number> {
    return this.defaultStore.currentRevision();
  }

  get(key: string, opts?: GetOptions): Promise<KeyValue> {
    return this.storeFor(key).get(key, opts);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.storeForPrefix(prefix).list(prefix, opts);
  }

  create(key: string, value: Buffer, opts?: CreateOptions): Promise<KeyValue> {
    return this.storeFor(key).create(key, value, opts);
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: GuaranteedUpdateOptions): Promise<KeyValue> {
    return this.storeFor(key).guaranteedUpdate(key, tryUpdate, opts);
  }

  delete(key: string, opts?: DeleteOptions): Promise<KeyValue> {
    return this.storeFor(key).delete(key, opts);
  }

  watch(prefix: string, opts?: WatchOptions): Watcher {
    return this.storeForPrefix(prefix).watch(prefix, opts);
  }

  /** Compacts the default store only: the revision belongs to its revision space. */
  compact(revision: number): Promise<void> {
    return this.defaultStore.compact(revision);
  }

  /** The default store's status; see `stores()` for the others. */
  status(): Promise<StorageStatus> {
    return this.defaultStore.status();
  }

  /** Defragments every store: unlike compaction it needs no revision. */
  async defragment(): Promise<void> {
    for (const s of this.stores()) await s.defragment();
  }

  /** Arms or disarms a failpoint in every store that has failpoints of its own. */
  async setFailpoint(name: string, action: string | null): Promise<void> {
    for (const s of this.stores()) await s.setFailpoint?.(name, action);
  }

  /** Disarms every store's alarms. */
  async disarmAlarms(): Promise<void> {
    for (const s of this.stores()) await s.disarmAlarms();
  }

  async close(): Promise<void> {
    await Promise.all(this.stores().map((s) => s.close()));
  }
}

/** One parsed --etcd-servers-overrides entry. */
export interface EtcdServersOverride {
  /** API group; '' for the core group. */
  group: string;
  resource: string;
  servers: string[];
}

/**
 * Parses kube-apiserver's --etcd-servers-overrides: comma-separated
 * `group/resource#servers`, servers separated by ';', the core group empty
 * (`/events#http://127.0.0.1:2479;http://127.0.0.1:2480`).
 */
export function parseEtcdServersOverrides(flag: string): EtcdServersOverride[] {
  const out: EtcdServersOverride[] = [];
  for (const entry of flag.split(',')) {
    const override = entry.trim();
    if (override === '') continue;
    const parts = override.split('#');
    if (parts.length !== 2) throw new Error(`invalid value of etcd server overrides: ${override}`);
    const gr = parts[0].split('/');
    if (gr.length !== 2 || gr[1] === '')
      throw new Error(`invalid resource definition in etcd server overrides: ${parts[0]}`);
    const servers = parts[1]
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (servers.length === 0) throw new Error(`no servers in etcd server overrides: ${override}`);
    out.push({ group: gr[0], resource: gr[1], servers });
  }
  return out;
}

/** The storage prefix of an overridden resource, as upstream keys it: `<root>/<resource>/`. */
export function overridePrefix(o: EtcdServersOverride, root = '/registry'): string {
  return `${root}/${o.resource}/`;
}
