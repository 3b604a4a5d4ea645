/**
 * Upstream's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), with the
 * objects themselves in bootstrap/: the cluster roles (cluster-admin, admin/edit/view and their
 * aggregate-to roles, the components' roles, the certificate roles), the `system:controller:*`
 * roles, the namespaced roles in kube-system and kube-public, and kubeadm's bindings.
 * Reconciled at start-up as upstream's storage post-start hook does: missing objects are created,
 * and unless annotated `rbac.authorization.kubernetes.io/autoupdate: "false"`, missing rules,
 * aggregation selectors and subjects are added back; nothing a user added is removed.
 */
import { NODE_RULES } from './bootstrap_node_policy.js';
import {
  AUTOUPDATE_ANNOTATION,
  clusterRole,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  CONTROLLER_CLUSTER_ROLE_BINDINGS,
  CONTROLLER_CLUSTER_ROLES,
  KUBEADM_CLUSTER_ROLE_BINDINGS,
  KUBEADM_CLUSTER_ROLES,
  NAMESPACE_ROLE_BINDINGS,
  NAMESPACE_ROLES,
  type Obj,
} from './bootstrap/index.js';

/** The ClusterRoles; system:node's rules come with the Node authorizer, and upstream binds it to no one. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly Obj[] = [
  ...CLUSTER_ROLES,
  clusterRole('system:node', [...NODE_RULES]),
  ...CONTROLLER_CLUSTER_ROLES,
  ...KUBEADM_CLUSTER_ROLES,
];

/** The ClusterRoleBindings, named as upstream and kubeadm name them. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly Obj[] = [
  ...CLUSTER_ROLE_BINDINGS,
  ...CONTROLLER_CLUSTER_ROLE_BINDINGS,
  ...KUBEADM_CLUSTER_ROLE_BINDINGS,
];

/** The namespaced Roles (kube-system, kube-public). */
export const BOOTSTRAP_ROLES: readonly Obj[] = NAMESPACE_ROLES;

/** The namespaced RoleBindings. */
export const BOOTSTRAP_ROLE_BINDINGS: readonly Obj[] = NAMESPACE_ROLE_BINDINGS;

/**
 * What reconciling `want` into `current` gives: null when nothing is to be done (it is complete, or
 * its autoupdate annotation is "false"); otherwise `current` with the missing rules and aggregation
 * selectors (roles) or subjects (bindings) appended, like upstream's reconciliation.
 */
export function reconcile(current: Obj, want: Obj): Obj | null {
  const ann = ((current.metadata as Obj | undefined)?.annotations ?? {}) as Record<string, string>;
  if (ann[AUTOUPDATE_ANNOTATION] === 'false') return null;
  let out: Obj | null = null;
  const field = 'subjects' in want ? 'subjects' : 'rules';
  const missing = missingItems(current[field], want[field]);
  if (missing.length > 0) out = { ...current, [field]: [...asArray(current[field]), ...missing] };
  const wantAgg = want.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
  if (wantAgg !== undefined) {
    const curAgg = (current.aggregationRule ?? {}) as { clusterRoleSelectors?: unknown[] };
    const missingSel = missingItems(curAgg.clusterRoleSelectors, wantAgg.clusterRoleSelectors);
    if (missingSel.length > 0)
      out = {
        ...(out ?? current),
        aggregationRule: { clusterRoleSelectors: [...asArray(curAgg.clusterRoleSelectors), ...missingSel] },
      };
  }
  return out;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function missingItems(have: unknown, want: unknown): unknown[] {
  const h = asArray(have);
  return asArray(want).filter((w) => !h.some((x) => sameJSON(x, w)));
}

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Obj)[k])]),
    );
  return v;
}
