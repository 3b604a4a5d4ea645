/**
 * The local object cache, like client-go's cache.Store and cache.Indexer over
 * a threadSafeMap: objects keyed by `namespace/name` (just `name` when
 * cluster-scoped), plus named indexes (index name -> index value -> keys)
 * kept up to date on every write, so lookups by namespace, node or a custom
 * function never scan the whole cache.
 */
import type { KubeObject } from '../../api/index.js';

/** Computes an object's cache key. */
export type KeyFunc<T> = (obj: T) => string;
/** Computes the index values an object is filed under. */
export type IndexFunc<T> = (obj: T) => string[];
/** Named index functions. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** The index name of `byNamespace`, as client-go's cache.NamespaceIndex. */
export const NAMESPACE_INDEX = 'namespace';

/** The last known state of an object whose deletion was missed (seen on relist), like client-go's DeletedFinalStateUnknown. */
export class DeletedFinalStateUnknown<T> {
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** The object of a delete notification: itself, or the last known state of one whose deletion was missed. */
export function unwrapDeleted<T>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

/** `namespace/name`, or `name` for cluster-scoped objects, like cache.MetaNamespaceKeyFunc. */
export function metaNamespaceKeyFunc(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns !== undefined && ns !== '' ? `${ns}/${name}` : name;
}

/** Splits a key made by metaNamespaceKeyFunc. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Indexes objects by namespace, like cache.MetaNamespaceIndexFunc. */
export const byNamespace: IndexFunc<KubeObject> = (obj) => [obj.metadata?.namespace ?? ''];

/** The write and read surface of a cache. */
export interface Store<T> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  /** Replaces the whole content, e.g. after a relist. */
  replace(items: T[]): void;
  get(obj: T): T | undefined;
  getByKey(key: string): T | undefined;
  list(): T[];
  listKeys(): string[];
}

/** A Store with named secondary indexes. */
export class Indexer<T extends KubeObject = KubeObject> implements Store<T> {
  private readonly items = new Map<string, T>();
  // index name -> index value -> keys
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly indexers: Indexers<T> = {};

  constructor(
    indexers: Indexers<T> = {},
    readonly keyFunc: KeyFunc<T> = metaNamespaceKeyFunc,
  ) {
    this.addIndexers(indexers);
  }

  /** Adds index functions; existing objects are indexed at once. */
  addIndexers(indexers: Indexers<T>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers[name] !== undefined) throw new Error(`indexer "${name}" already exists`);
      this.indexers[name] = fn;
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(index, v, key);
    }
  }

  /** The registered index functions. */
  getIndexers(): Readonly<Indexers<T>> {
    return this.indexers;
  }

  add(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  update(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  delete(obj: T): void {
    this.deleteKey(this.keyFunc(obj));
  }

  /** Removes the object under `key`, if any. */
  deleteKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.items.delete(key);
  }

  replace(items: T[]): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const obj of items) this.put(this.keyFunc(obj), obj);
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** How many objects are cached. */
  get size(): number {
    return this.items.size;
  }

  /** Objects filed under `value` in the named index. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexKeys(indexName, value).map((k) => this.items.get(k)!);
  }

  /** Keys filed under `value` in the named index. */
  indexKeys(indexName: string, value: string): string[] {
    const set = this.indexOf(indexName).get(value);
    return set === undefined ? [] : [...set];
  }

  /** How many objects are filed under `value` in the named index, without listing them. */
  countByIndex(indexName: string, value: string): number {
    return this.indexOf(indexName).get(value)?.size ?? 0;
  }

  /** Objects sharing any index value with `obj`, like Indexer.Index. */
  index(indexName: string, obj: T): T[] {
    const fn = this.indexers[indexName];
    if (fn === undefined) throw new Error(`index with name ${indexName} does not exist`);
    const keys = new Set<string>();
    for (const v of fn(obj)) for (const k of this.indexKeys(indexName, v)) keys.add(k);
    return [...keys].map((k) => this.items.get(k)!);
  }

  /** Every value present in the named index. */
  listIndexFuncValues(indexName: string): string[] {
    return [...this.indexOf(indexName).keys()];
  }

  private indexOf(name: string): Map<string, Set<string>> {
    const index = this.indices.get(name);
    if (index === undefined) throw new Error(`index with name ${name} does not exist`);
    return index;
  }

  private put(key: string, obj: T): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      const values = fn(obj);
      if (old === undefined) {
        for (const v of values) addTo(index, v, key);
        continue;
      }
      // Like client-go's updateIndices: an update that files the object under the same values touches nothing.
      const oldValues = fn(old);
      if (sameValues(oldValues, values)) continue;
      for (const v of oldValues) removeFrom(index, v, key);
      for (const v of values) addTo(index, v, key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) removeFrom(index, v, key);
    }
  }
}

function sameValues(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function removeFrom(index: Map<string, Set<string>>, value: string, key: string): void {
  const set = index.get(value);
  if (set === undefined) return;
  set.delete(key);
  // Drop empty sets so high-churn values (pod names, node names) do not leak.
  if (set.size === 0) index.delete(value);
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (set === undefined) index.set(value, (set = new Set()));
  set.add(key);
}
