/**
 * Upstream's bootstrap RBAC policy that kscale serves so far
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy): cluster-admin for
 * system:masters, discovery and self-review for every authenticated user,
 * public info (health, version) for everyone, and system:monitoring.
 * Reconciled at start-up as upstream's storage post-start hook does: missing
 * objects are created, and unless annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"`, missing rules and
 * subjects are added back; nothing a user added is removed.
 */
import { NODE_RULES } from './bootstrap_node_policy.js';
import type { Rule } from './rules.js';
import { CERTIFICATES_CLUSTER_ROLE_BINDINGS, CERTIFICATES_CLUSTER_ROLES } from './bootstrap_certificates_policy.js';

type Obj = Record<string, unknown>;

const GROUP = 'rbac.authorization.k8s.io';
const META = (name: string): Obj => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

const clusterRole = (name: string, rules: Rule[]): Obj => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ClusterRole',
  metadata: META(name),
  rules,
});
const bindGroups = (name: string, role: string, groups: string[]): Obj => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: META(name),
  roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role },
  subjects: groups.map((g) => ({ apiGroup: GROUP, kind: 'Group', name: g })),
});

/** The ClusterRoles. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly Obj[] = [
  clusterRole('cluster-admin', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]),
  clusterRole('system:discovery', [
    {
      nonResourceURLs: [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/healthz',
        '/livez',
        '/openapi',
        '/openapi/*',
        '/readyz',
        '/version',
        '/version/',
      ],
      verbs: ['get'],
    },
  ]),
  clusterRole('system:basic-user', [
    {
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      verbs: ['create'],
    },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ]),
  clusterRole('system:public-info-viewer', [
    { nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] },
  ]),
  clusterRole('system:monitoring', [
    {
      nonResourceURLs: [
        '/healthz',
        '/healthz/*',
        '/livez',
        '/livez/*',
        '/metrics',
        '/metrics/slis',
        '/readyz',
        '/readyz/*',
      ],
      verbs: ['get'],
    },
  ]),
  // Bound to no one, as upstream: the Node authorizer carries node permissions.
  clusterRole('system:node', [...NODE_RULES]),
  ...CERTIFICATES_CLUSTER_ROLES,
];

/** The ClusterRoleBindings, named as upstream names them. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly Obj[] = [
  bindGroups('cluster-admin', 'cluster-admin', ['system:masters']),
  bindGroups('system:discovery', 'system:discovery', ['system:authenticated']),
  bindGroups('system:basic-user', 'system:basic-user', ['system:authenticated']),
  bindGroups('system:public-info-viewer', 'system:public-info-viewer', [
    'system:authenticated',
    'system:unauthenticated',
  ]),
  bindGroups('system:monitoring', 'system:monitoring', ['system:monitoring']),
  ...CERTIFICATES_CLUSTER_ROLE_BINDINGS,
];

/**
 * What reconciling `want` into `current` gives: null when nothing is to be done (it is complete, or
 * its autoupdate annotation is "false"); otherwise `current` with the missing rules (roles) or
 * subjects (bindings) appended.
 */
export function reconcile(current: Obj, want: Obj): Obj | null {
  const ann = ((current.metadata as Obj | undefined)?.annotations ?? {}) as Record<string, string>;
  if (ann['rbac.authorization.kubernetes.io/autoupdate'] === 'false') return null;
  const field = 'rules' in want ? 'rules' : 'subjects';
  const have = Array.isArray(current[field]) ? (current[field] as unknown[]) : [];
  const missing = (want[field] as unknown[]).filter((w) => !have.some((h) => sameJSON(h, w)));
  if (missing.length === 0) return null;
  return { ...current, [field]: [...have, ...missing] };
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
