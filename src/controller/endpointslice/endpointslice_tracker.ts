/**
 * EndpointSliceTracker, like k8s.io/endpointslice's tracker: remembers the
 * resourceVersion of every slice this controller wrote (or that it deleted)
 * until the informer has caught up. A sync that sees an older cache is
 * retried instead of acting on stale slices (which would write duplicates),
 * and the informer events of our own writes do not queue the Service again.
 */
import type { EndpointSlice } from '../../api/index.js';

const DELETED = -1;
const rvOf = (s: EndpointSlice): number => Number(s.metadata?.resourceVersion ?? 0);

/** Expected slice states per Service key. */
export class EndpointSliceTracker {
  private readonly expected = new Map<string, Map<string, number>>();

  /** Records a slice we created or updated. */
  written(serviceKey: string, slice: EndpointSlice): void {
    this.forService(serviceKey).set(slice.metadata!.name!, rvOf(slice));
  }

  /** Records a slice we deleted. */
  deleted(serviceKey: string, name: string): void {
    this.forService(serviceKey).set(name, DELETED);
  }

  /** The first slice whose cached state is older than what we last wrote (undefined: none); expectations the cache meets are dropped. */
  stale(serviceKey: string, cached: readonly EndpointSlice[]): string | undefined {
    const exp = this.expected.get(serviceKey);
    if (exp === undefined) return undefined;
    const byName = new Map(cached.map((s) => [s.metadata?.name ?? '', s]));
    let stale: string | undefined;
    for (const [name, rv] of exp) {
      const c = byName.get(name);
      if (rv === DELETED ? c !== undefined : c === undefined || rvOf(c) < rv)
        stale ??= `${name}: want ${rv === DELETED ? 'deleted' : `resourceVersion ${rv}`}, cached ${c?.metadata?.resourceVersion ?? 'none'}`;
      else exp.delete(name);
    }
    if (exp.size === 0) this.expected.delete(serviceKey);
    return stale;
  }

  /**
   * Called for every informer event of a managed slice: false when it only
   * shows our own write (or delete), true when someone else changed it.
   */
  shouldSync(serviceKey: string, slice: EndpointSlice, deleted: boolean): boolean {
    const exp = this.expected.get(serviceKey);
    const name = slice.metadata?.name ?? '';
    const want = exp?.get(name);
    if (want === undefined) return true;
    let own: boolean;
    if (deleted) {
      own = want === DELETED;
      exp!.delete(name);
    } else {
      own = want !== DELETED && rvOf(slice) <= want;
      if (want !== DELETED && rvOf(slice) >= want) exp!.delete(name);
    }
    if (exp!.size === 0) this.expected.delete(serviceKey);
    return !own;
  }

  /** Forgets a deleted Service. */
  deleteService(serviceKey: string): void {
    this.expected.delete(serviceKey);
  }

  private forService(key: string): Map<string, number> {
    let m = this.expected.get(key);
    if (m === undefined) this.expected.set(key, (m = new Map()));
    return m;
  }
}
