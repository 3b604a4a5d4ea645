/**
 * Reconciles upstream's bootstrap RBAC policy at start-up, like
 * kube-apiserver's rbac/bootstrap-roles post-start hook: each default
 * ClusterRole, ClusterRoleBinding, Role and RoleBinding is created when
 * missing, and gets its missing rules or subjects back unless its autoupdate
 * annotation is "false".
 */
import { isNotFoundError } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
  reconcile,
} from '../authorization/index.js';
import { deepCopy, meta, type Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';

/** Creates or reconciles every bootstrap role and binding (the namespaces must exist). */
export async function reconcileBootstrapPolicy(stores: Map<string, GenericStore>, clock: Clock): Promise<void> {
  for (const [resource, objs] of [
    ['clusterroles', BOOTSTRAP_CLUSTER_ROLES],
    ['clusterrolebindings', BOOTSTRAP_CLUSTER_ROLE_BINDINGS],
    ['roles', BOOTSTRAP_ROLES],
    ['rolebindings', BOOTSTRAP_ROLE_BINDINGS],
  ] as const) {
    const store = stores.get(resource)!;
    for (const want of objs) await ensure(store, want, clock);
  }
}

async function ensure(store: GenericStore, want: Obj, clock: Clock): Promise<void> {
  const name = meta(want).name as string;
  const namespace = meta(want).namespace as string | undefined;
  try {
    const current = await store.get(namespace, name);
    if (reconcile(current, want) === null) return;
    await store.guaranteedUpdate(
      namespace,
      name,
      (cur) => {
        if (cur === null) return Promise.reject(new Error('gone'));
        return reconcile(cur, want) ?? cur;
      },
      { allowCreate: false, dryRun: false },
    );
  } catch (err) {
    if (!isNotFoundError(err)) throw err;
    try {
      await store.create(deepCopy(want), { now: clock.now(), dryRun: false });
    } catch (e) {
      if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
    }
  }
}
