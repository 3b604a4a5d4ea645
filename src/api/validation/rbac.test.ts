import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from '../defaults.js';
import { errorString } from './field.js';
import { validateCreate, validateUpdate } from './index.js';
import type { KubeObject } from '../types.js';

const texts = (resource: string, obj: KubeObject, old?: KubeObject): string[] =>
  (old === undefined ? validateCreate(resource, obj) : validateUpdate(resource, obj, old)).map(errorString);

const crb = (subjects: object[], roleRef: object = { kind: 'ClusterRole', name: 'view' }): KubeObject =>
  applyDefaults('clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'b' },
    roleRef,
    subjects,
  });

test('binding subjects follow upstream: ServiceAccounts in the core group with a namespace, users and groups in the RBAC group', () => {
  assert.deepEqual(
    texts(
      'clusterrolebindings',
      crb([
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
      ]),
    ),
    [],
    'User and Group default to the RBAC group',
  );
  assert.deepEqual(texts('clusterrolebindings', crb([{ kind: 'ServiceAccount', name: 'sa' }])), [
    'subjects[0].namespace: Required value',
  ]);
  assert.deepEqual(
    texts('clusterrolebindings', crb([{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns', apiGroup: 'x' }])),
    ['subjects[0].apiGroup: Unsupported value: "x": supported values: ""'],
  );
  assert.deepEqual(texts('clusterrolebindings', crb([{ kind: 'Robot', name: 'r2' }])), [
    'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
  ]);
  assert.deepEqual(texts('clusterrolebindings', crb([{ kind: 'User', name: '' }])), [
    'subjects[0].name: Required value',
  ]);
});

test('role names are path segments: colons are fine, slashes are not', () => {
  const role = (name: string): KubeObject => ({
    metadata: { name },
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
  });
  assert.deepEqual(texts('clusterroles', role('system:controller:x')), []);
  assert.deepEqual(texts('clusterroles', role('a/b')), ['metadata.name: Invalid value: "a/b": may not contain \'/\'']);
  assert.deepEqual(
    texts('clusterroles', {
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }],
    }),
    [
      'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
    ],
  );
  assert.deepEqual(texts('clusterroles', { metadata: { name: 'r' }, rules: [{ verbs: ['get'] }] }), [
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[0].resources: Required value: resource rules must supply at least one resource',
  ]);
  assert.deepEqual(
    texts('clusterroles', { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }),
    [
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ],
  );
});

test("a binding's roleRef cannot change; its subjects can", () => {
  const old = { ...crb([{ kind: 'User', name: 'alice' }]), metadata: { name: 'b', resourceVersion: '1' } };
  const moreSubjects = {
    ...crb([
      { kind: 'User', name: 'alice' },
      { kind: 'User', name: 'bob' },
    ]),
    metadata: { name: 'b', resourceVersion: '1' },
  };
  assert.deepEqual(texts('clusterrolebindings', moreSubjects, old), []);
  const otherRole = {
    ...crb([{ kind: 'User', name: 'alice' }], { kind: 'ClusterRole', name: 'edit' }),
    metadata: { name: 'b', resourceVersion: '1' },
  };
  assert.equal(texts('clusterrolebindings', otherRole, old).filter((t) => /cannot change roleRef/.test(t)).length, 1);
});
