/** ListerWatcher, like client-go's cache.ListWatch: the list and watch calls a Reflector makes, with selectors fixed. */
import type { KubeList, KubeObject } from '../../api/index.js';
import type { ListOptions, ResourceClient, WatchOptions } from '../rest/resource.js';
import type { Watch } from '../rest/watch.js';

/** Lists and watches one collection. */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  list(opts: ListOptions): Promise<KubeList<T>>;
  watch(opts: WatchOptions): Promise<Watch<T>>;
}

/** Scope of a ListerWatcher: a namespace (all when unset) and label/field selectors applied to both list and watch. */
export interface ListWatchScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** A ListerWatcher over a resource client, like cache.NewFilteredListWatchFromClient. */
export function listWatchFor<T extends KubeObject>(
  client: ResourceClient<T>,
  scope: ListWatchScope = {},
): ListerWatcher<T> {
  const fixed = (o: ListOptions): ListOptions => ({
    ...o,
    ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
    ...(scope.labelSelector !== undefined ? { labelSelector: scope.labelSelector } : {}),
    ...(scope.fieldSelector !== undefined ? { fieldSelector: scope.fieldSelector } : {}),
  });
  return {
    list: (o) => client.list(fixed(o)),
    watch: (o) => client.watch(fixed(o)),
  };
}
