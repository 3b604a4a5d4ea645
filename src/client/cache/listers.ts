/**
 * Listers, like client-go's generated listers: reads served from an
 * informer's Indexer, never from the API server. Namespaced reads use the
 * namespace index when it exists; returned objects are shared, do not mutate.
 */
import { parseLabelSelector, type KubeObject, type LabelSelectorMatcher } from '../../api/index.js';
import { NAMESPACE_INDEX, type Indexer } from './store.js';

/** A label selector as a string ("app=web,tier!=db") or a compiled matcher. */
export type Selector = string | LabelSelectorMatcher;

function matcher(selector: Selector | undefined): LabelSelectorMatcher | undefined {
  if (selector === undefined || selector === '') return undefined;
  const m = typeof selector === 'string' ? parseLabelSelector(selector) : selector;
  return m.empty ? undefined : m;
}

function filter<T extends KubeObject>(objs: T[], selector: Selector | undefined): T[] {
  const m = matcher(selector);
  return m === undefined ? objs : objs.filter((o) => m.matches(o.metadata?.labels));
}

/** Reads one collection from a cache. */
export class Lister<T extends KubeObject = KubeObject> {
  constructor(readonly indexer: Indexer<T>) {}

  /** All cached objects matching the label selector. */
  list(selector?: Selector): T[] {
    return filter(this.indexer.list(), selector);
  }

  /** A cluster-scoped object by name (or any object by its `namespace/name` key). */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  /** Reads limited to one namespace. */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

/** Reads within one namespace. */
export class NamespaceLister<T extends KubeObject = KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    readonly namespace: string,
  ) {}

  /** Objects of this namespace matching the label selector. */
  list(selector?: Selector): T[] {
    const objs =
      this.indexer.getIndexers()[NAMESPACE_INDEX] !== undefined
        ? this.indexer.byIndex(NAMESPACE_INDEX, this.namespace)
        : this.indexer.list().filter((o) => (o.metadata?.namespace ?? '') === this.namespace);
    return filter(objs, selector);
  }

  /** One object by name. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(this.namespace === '' ? name : `${this.namespace}/${name}`);
  }
}
