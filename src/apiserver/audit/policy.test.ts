import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditPolicy } from '../../api/index.js';
import { parsePolicy, PolicyRuleEvaluator, type AuditAttributes } from './policy.js';

const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const node = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

function attrs(a: Partial<AuditAttributes>): AuditAttributes {
  return {
    user: alice,
    verb: 'get',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods/p',
    namespace: 'default',
    apiGroup: '',
    resource: 'pods',
    subresource: '',
    name: 'p',
    ...a,
  };
}

function policy(rules: AuditPolicy['rules'], extra: Partial<AuditPolicy> = {}): AuditPolicy {
  return { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules, ...extra };
}

const cases: { name: string; rules: AuditPolicy['rules']; attrs: Partial<AuditAttributes>; want: string }[] = [
  { name: 'no rule matches: None', rules: [{ level: 'Metadata', users: ['bob'] }], attrs: {}, want: 'None' },
  { name: 'empty rule matches everything', rules: [{ level: 'Request' }], attrs: {}, want: 'Request' },
  {
    name: 'first matching rule wins',
    rules: [{ level: 'None', verbs: ['get'] }, { level: 'Metadata' }],
    attrs: {},
    want: 'None',
  },
  { name: 'users', rules: [{ level: 'Metadata', users: ['alice'] }], attrs: {}, want: 'Metadata' },
  {
    name: 'userGroups, any group',
    rules: [{ level: 'Metadata', userGroups: ['system:nodes'] }],
    attrs: { user: node },
    want: 'Metadata',
  },
  { name: 'userGroups miss', rules: [{ level: 'Metadata', userGroups: ['system:nodes'] }], attrs: {}, want: 'None' },
  {
    name: 'users need a user',
    rules: [{ level: 'Metadata', users: ['alice'] }],
    attrs: { user: undefined },
    want: 'None',
  },
  { name: 'verbs miss', rules: [{ level: 'Metadata', verbs: ['create', 'update'] }], attrs: {}, want: 'None' },
  {
    name: 'core group resource',
    rules: [{ level: 'Request', resources: [{ group: '', resources: ['pods'] }] }],
    attrs: {},
    want: 'Request',
  },
  {
    name: 'group must match',
    rules: [{ level: 'Request', resources: [{ group: 'apps', resources: ['pods'] }] }],
    attrs: {},
    want: 'None',
  },
  {
    name: 'group with no resources matches all of it',
    rules: [{ level: 'Request', resources: [{ group: 'apps' }] }],
    attrs: { apiGroup: 'apps', resource: 'deployments' },
    want: 'Request',
  },
  {
    name: 'pods does not match pods/status',
    rules: [{ level: 'Request', resources: [{ resources: ['pods'] }] }],
    attrs: { subresource: 'status' },
    want: 'None',
  },
  {
    name: 'pods/status matches the subresource',
    rules: [{ level: 'Request', resources: [{ resources: ['pods/status'] }] }],
    attrs: { subresource: 'status' },
    want: 'Request',
  },
  {
    name: '*/status matches any status',
    rules: [{ level: 'Request', resources: [{ resources: ['*/status'] }] }],
    attrs: { resource: 'nodes', subresource: 'status' },
    want: 'Request',
  },
  {
    name: 'pods/* matches pods and its subresources',
    rules: [{ level: 'Request', resources: [{ resources: ['pods/*'] }] }],
    attrs: { subresource: 'log' },
    want: 'Request',
  },
  {
    name: '* matches any resource',
    rules: [{ level: 'Request', resources: [{ resources: ['*'] }] }],
    attrs: { resource: 'configmaps' },
    want: 'Request',
  },
  {
    name: 'resourceNames match',
    rules: [{ level: 'Request', resources: [{ resources: ['configmaps'], resourceNames: ['cfg'] }] }],
    attrs: { resource: 'configmaps', name: 'cfg' },
    want: 'Request',
  },
  {
    name: 'resourceNames miss',
    rules: [{ level: 'Request', resources: [{ resources: ['configmaps'], resourceNames: ['cfg'] }] }],
    attrs: { resource: 'configmaps', name: 'other' },
    want: 'None',
  },
  {
    name: 'namespaces match',
    rules: [{ level: 'Metadata', namespaces: ['kube-system'] }],
    attrs: { namespace: 'kube-system' },
    want: 'Metadata',
  },
  { name: 'namespaces miss', rules: [{ level: 'Metadata', namespaces: ['kube-system'] }], attrs: {}, want: 'None' },
  {
    name: 'cluster-scoped is namespace ""',
    rules: [{ level: 'Metadata', namespaces: [''] }],
    attrs: { namespace: '', resource: 'nodes' },
    want: 'Metadata',
  },
  {
    name: 'resource rules skip non-resource requests',
    rules: [{ level: 'Metadata', namespaces: ['default'] }],
    attrs: { isResourceRequest: false, path: '/healthz' },
    want: 'None',
  },
  {
    name: 'nonResourceURLs exact',
    rules: [{ level: 'Metadata', nonResourceURLs: ['/version'] }],
    attrs: { isResourceRequest: false, path: '/version' },
    want: 'Metadata',
  },
  {
    name: 'nonResourceURLs prefix wildcard',
    rules: [{ level: 'Metadata', nonResourceURLs: ['/healthz*'] }],
    attrs: { isResourceRequest: false, path: '/healthz/etcd' },
    want: 'Metadata',
  },
  {
    name: 'nonResourceURLs skip resource requests',
    rules: [{ level: 'Metadata', nonResourceURLs: ['*'] }],
    attrs: {},
    want: 'None',
  },
];

for (const c of cases) {
  test(`audit policy: ${c.name}`, () => {
    assert.equal(new PolicyRuleEvaluator(policy(c.rules)).evaluate(attrs(c.attrs)).level, c.want);
  });
}

test('audit policy: a rule omits its own stages and the policy’s; omitManagedFields falls back to the policy’s', () => {
  const e = new PolicyRuleEvaluator(
    policy(
      [
        { level: 'Metadata', verbs: ['get'], omitStages: ['ResponseStarted'] },
        { level: 'Request', omitManagedFields: false },
      ],
      { omitStages: ['RequestReceived'], omitManagedFields: true },
    ),
  );
  const get = e.evaluate(attrs({}));
  assert.deepEqual([...get.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  assert.equal(get.omitManagedFields, true);
  assert.equal(e.evaluate(attrs({ verb: 'list' })).omitManagedFields, false);
});

test('audit policy file: YAML and JSON parse; zero rules, bad levels and mixed rules are refused', () => {
  const yaml = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';
  assert.equal(parsePolicy(yaml, 'p.yaml').rules[0]!.level, 'Metadata');
  assert.equal(parsePolicy(JSON.stringify(policy([{ level: 'None' }])), 'p.json').rules.length, 1);
  assert.throws(
    () => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n', 'p.yaml'),
    /loaded illegal policy with 0 rules from file p.yaml/,
  );
  assert.throws(
    () => parsePolicy(JSON.stringify(policy([{ level: 'Everything' as 'None' }])), 'p'),
    /rules\[0\]\.level: Unsupported value: "Everything"/,
  );
  assert.throws(
    () => parsePolicy(JSON.stringify(policy([{ level: 'None', omitStages: ['Later' as 'Panic'] }])), 'p'),
    /rules\[0\]\.omitStages\[0\]: Unsupported value/,
  );
  assert.throws(
    () => parsePolicy(JSON.stringify(policy([{ level: 'None', nonResourceURLs: ['/x'], namespaces: ['a'] }])), 'p'),
    /cannot apply to both regular resources and non-resource URLs/,
  );
  assert.throws(
    () => parsePolicy(JSON.stringify(policy([{ level: 'None', nonResourceURLs: ['x*y'] }])), 'p'),
    /must begin with a '\/'.*must be the final character/,
  );
  assert.throws(() => parsePolicy('kind: Policy\nrules: [{level: None}]\n', 'p'), /expected audit.k8s.io\/v1 Policy/);
  assert.throws(() => parsePolicy('{{{', 'p'), /failed decoding/);
});
