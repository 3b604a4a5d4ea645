import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
  reconcile,
} from './bootstrap_policy.js';

type Obj = Record<string, unknown>;
const meta = (o: Obj): { name: string; namespace?: string; labels: Record<string, string> } =>
  o.metadata as { name: string; namespace?: string; labels: Record<string, string> };
const key = (o: Obj): string => `${meta(o).namespace ?? ''}/${meta(o).name}`;

test('every bootstrap object is labelled rbac-defaults, marked autoupdate, and named once', () => {
  for (const list of [
    BOOTSTRAP_CLUSTER_ROLES,
    BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
    BOOTSTRAP_ROLES,
    BOOTSTRAP_ROLE_BINDINGS,
  ]) {
    const names = list.map(key);
    assert.equal(new Set(names).size, names.length, `duplicate in ${names.join(' ')}`);
    for (const o of list) {
      assert.equal(meta(o).labels['kubernetes.io/bootstrapping'], 'rbac-defaults', key(o));
      const ann = (o.metadata as { annotations: Record<string, string> }).annotations;
      assert.equal(ann['rbac.authorization.kubernetes.io/autoupdate'], 'true', key(o));
    }
  }
});

test('every binding refers to a role the policy has, in its own namespace for a Role', () => {
  const clusterRoles = new Set(BOOTSTRAP_CLUSTER_ROLES.map((r) => meta(r).name));
  const roles = new Set(BOOTSTRAP_ROLES.map(key));
  for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
    const ref = b.roleRef as { kind: string; name: string };
    assert.equal(ref.kind, 'ClusterRole');
    assert.ok(clusterRoles.has(ref.name), `${key(b)} -> ${ref.name}`);
  }
  for (const b of BOOTSTRAP_ROLE_BINDINGS) {
    const ref = b.roleRef as { kind: string; name: string };
    assert.ok(roles.has(`${meta(b).namespace}/${ref.name}`), `${key(b)} -> ${ref.name}`);
  }
});

test('admin, edit and view aggregate, and edit and view are aggregated into the roles above them', () => {
  const byName = new Map(BOOTSTRAP_CLUSTER_ROLES.map((r) => [meta(r).name, r]));
  const selector = (name: string): unknown =>
    (byName.get(name)!.aggregationRule as { clusterRoleSelectors: unknown[] }).clusterRoleSelectors;
  assert.deepEqual(selector('view'), [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }]);
  assert.equal(meta(byName.get('view')!).labels['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
  assert.equal(meta(byName.get('edit')!).labels['rbac.authorization.k8s.io/aggregate-to-admin'], 'true');
  assert.equal(
    meta(byName.get('system:aggregate-to-view')!).labels['rbac.authorization.k8s.io/aggregate-to-view'],
    'true',
  );
  for (const name of [
    'system:controller:clusterrole-aggregation-controller',
    'system:controller:certificate-controller',
    'system:node-bootstrapper',
    'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    'system:kube-scheduler',
    'system:kube-controller-manager',
    'system:node-proxier',
  ])
    assert.ok(byName.has(name), name);
});

test('reconciling adds missing aggregation selectors and keeps the rules the aggregation controller wrote', () => {
  const want = BOOTSTRAP_CLUSTER_ROLES.find((r) => meta(r).name === 'view')!;
  const aggregated = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
  const current = { metadata: { name: 'view' }, rules: aggregated };
  const out = reconcile(current, want);
  assert.deepEqual(out?.aggregationRule, want.aggregationRule);
  assert.deepEqual(out?.rules, aggregated);
  assert.equal(reconcile(out!, want), null, 'complete');
});
