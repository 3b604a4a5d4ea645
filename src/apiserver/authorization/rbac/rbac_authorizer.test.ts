import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Attributes } from '../authorizer.js';
import { reconcile } from './bootstrap_policy.js';
import { RBACAuthorizer } from './rbac_authorizer.js';
import { ruleAllows } from './rules.js';

const attrs = (over: Partial<Attributes>): Attributes => ({
  user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '',
  namespace: 'ns',
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...over,
});

test('rules match verbs, groups, resources, subresources, names and non-resource URLs as upstream', () => {
  const pods = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
  assert.ok(ruleAllows(attrs({}), pods));
  assert.ok(!ruleAllows(attrs({ verb: 'delete' }), pods));
  assert.ok(!ruleAllows(attrs({ apiGroup: 'apps' }), pods));
  assert.ok(!ruleAllows(attrs({ subresource: 'status' }), pods), 'pods does not cover pods/status');
  assert.ok(
    ruleAllows(attrs({ subresource: 'status' }), { verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }),
  );
  assert.ok(
    ruleAllows(attrs({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }), {
      verbs: ['get'],
      apiGroups: ['*'],
      resources: ['*/scale'],
    }),
  );
  assert.ok(
    ruleAllows(attrs({ name: 'p' }), { verbs: ['*'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }),
  );
  assert.ok(
    !ruleAllows(attrs({ name: '', verb: 'list' }), {
      verbs: ['*'],
      apiGroups: [''],
      resources: ['pods'],
      resourceNames: ['p'],
    }),
    'a named rule never covers a list',
  );
  const urls = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
  assert.ok(ruleAllows(attrs({ isResourceRequest: false, path: '/healthz' }), urls));
  assert.ok(ruleAllows(attrs({ isResourceRequest: false, path: '/apis/apps/v1' }), urls));
  assert.ok(!ruleAllows(attrs({ isResourceRequest: false, path: '/healthz/etcd' }), urls));
  assert.ok(!ruleAllows(attrs({}), urls), 'URL rules never cover resources');
});

test('bindings apply by user, group and ServiceAccount; RoleBindings only in their namespace', () => {
  const z = new RBACAuthorizer();
  z.putRole('ClusterRole', {
    metadata: { name: 'reader' },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  });
  z.putRole('Role', {
    metadata: { name: 'writer', namespace: 'ns' },
    rules: [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }],
  });
  z.putBinding('RoleBinding', {
    metadata: { name: 'b', namespace: 'ns' },
    roleRef: { kind: 'Role', name: 'writer' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  });
  z.putBinding('RoleBinding', {
    metadata: { name: 'r', namespace: 'ns' },
    roleRef: { kind: 'ClusterRole', name: 'reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
  });
  assert.equal(z.authorize(attrs({ verb: 'create', name: '' })).decision, 'allow');
  assert.equal(z.authorize(attrs({ verb: 'create', name: '', namespace: 'other' })).decision, 'noOpinion');
  assert.equal(z.authorize(attrs({})).decision, 'noOpinion', 'alice has no reader binding');
  const sa = { username: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts'] };
  assert.match(
    z.authorize(attrs({ user: sa })).reason,
    /allowed by RoleBinding "r" of ClusterRole "reader" to User "system:serviceaccount:ns:sa" in namespace "ns"/,
  );
  assert.equal(
    z.authorize(attrs({ user: sa, namespace: 'other' })).decision,
    'noOpinion',
    "the ServiceAccount subject defaults to the binding's namespace",
  );
  z.deleteBinding('RoleBinding', { metadata: { name: 'r', namespace: 'ns' } });
  assert.equal(z.authorize(attrs({ user: sa })).decision, 'noOpinion');
  z.putBinding('ClusterRoleBinding', {
    metadata: { name: 'c' },
    roleRef: { kind: 'ClusterRole', name: 'reader' },
    subjects: [{ kind: 'User', name: 'alice' }],
  });
  assert.equal(z.authorize(attrs({ namespace: 'anywhere' })).decision, 'allow');
  z.deleteRole('ClusterRole', { metadata: { name: 'reader' } });
  assert.equal(z.authorize(attrs({})).decision, 'noOpinion', 'a binding to a missing role grants nothing');
});

test('reconciling adds back missing rules and subjects, keeps extras, and respects autoupdate "false"', () => {
  const want = {
    metadata: { name: 'r' },
    rules: [
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      { verbs: ['get'], nonResourceURLs: ['/version'] },
    ],
  };
  const current = {
    metadata: { name: 'r', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    rules: [
      { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      { verbs: ['get'], nonResourceURLs: ['/mine'] },
    ],
  };
  assert.deepEqual(reconcile(current, want)?.rules, [
    ...current.rules,
    { verbs: ['get'], nonResourceURLs: ['/version'] },
  ]);
  assert.equal(
    reconcile({ ...current, rules: [...current.rules, { verbs: ['get'], nonResourceURLs: ['/version'] }] }, want),
    null,
    'complete',
  );
  assert.equal(
    reconcile(
      { ...current, metadata: { name: 'r', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } } },
      want,
    ),
    null,
  );
  const binding = {
    metadata: { name: 'b' },
    subjects: [{ kind: 'Group', name: 'system:masters', apiGroup: 'rbac.authorization.k8s.io' }],
  };
  assert.deepEqual(reconcile({ metadata: { name: 'b' }, subjects: [] }, binding)?.subjects, binding.subjects);
});
