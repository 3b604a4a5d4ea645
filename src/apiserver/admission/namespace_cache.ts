/**
 * One resource's objects by namespace, fed by a StoreInformer: the lister the
 * LimitRanger and ResourceQuota plugins read, so a namespace without
 * LimitRanges or quotas costs one map lookup.
 */
import type { Obj } from '../object.js';
import type { StoreInformerHandler } from '../controllers/store_informer.js';

/** Objects of one resource by namespace, then name. */
export class NamespaceObjectCache implements StoreInformerHandler {
  private readonly byNamespace = new Map<string, Map<string, Obj>>();

  /** The objects in a namespace (empty when none). */
  list(namespace: string): Obj[] {
    const m = this.byNamespace.get(namespace);
    return m === undefined ? [] : [...m.values()];
  }

  /** Replaces everything, as after a relist. */
  replace(objs: Obj[]): void {
    this.byNamespace.clear();
    for (const o of objs) this.put(o);
  }

  /** Adds or replaces one object. */
  put(obj: Obj): void {
    const { namespace = '', name = '' } = (obj.metadata ?? {}) as { namespace?: string; name?: string };
    let m = this.byNamespace.get(namespace);
    if (m === undefined) this.byNamespace.set(namespace, (m = new Map()));
    m.set(name, obj);
  }

  /** Removes one object. */
  delete(obj: Obj): void {
    const { namespace = '', name = '' } = (obj.metadata ?? {}) as { namespace?: string; name?: string };
    const m = this.byNamespace.get(namespace);
    m?.delete(name);
    if (m?.size === 0) this.byNamespace.delete(namespace);
  }
}
