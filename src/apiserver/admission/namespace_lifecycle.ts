/**
 * NamespaceLifecycle, as upstream's plugin: no new objects in a namespace
 * that does not exist or is terminating, and the system namespaces cannot be
 * deleted.
 */
import { forbidden, notFound } from '../../api/index.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';
import type { AdmissionPlugin, Attributes } from './chain.js';

/** Namespaces that may never be deleted. */
export const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** Builds the plugin over the namespaces store. */
export function namespaceLifecycle(
  namespaces: () => GenericStore,
  clusterScoped: (resource: string) => boolean,
): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(a: Attributes): Promise<void> {
      if (a.resource === 'namespaces') {
        if (a.operation === 'DELETE' && IMMORTAL_NAMESPACES.has(a.name)) {
          throw forbidden({ group: '', resource: 'namespaces' }, a.name, 'this namespace may not be deleted');
        }
        return;
      }
      if (a.operation !== 'CREATE' || a.namespace === '' || clusterScoped(a.resource) || a.subresource !== '') return;
      const store = namespaces();
      let ns: Obj;
      try {
        // Possibly a little stale, like upstream's namespace lister (resourceVersion "0").
        ns = (await store.objects.getObject(store.key(undefined, a.namespace), { minRevision: 0 })).decode() as Obj;
      } catch {
        // Not in the watch cache (yet): it may just have been created, so ask storage.
        try {
          ns = await store.get(undefined, a.namespace);
        } catch {
          throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
        }
      }
      if (
        (ns.status as { phase?: string } | undefined)?.phase === 'Terminating' ||
        ns.metadata?.deletionTimestamp !== undefined
      ) {
        // Upstream lets Events through so the namespace controller can report progress.
        if (a.resource === 'events') return;
        throw forbidden(
          { group: '', resource: a.resource },
          a.name,
          `unable to create new content in namespace ${a.namespace} because it is being terminated`,
        );
      }
    },
  };
}
