import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '../types/core.js';
import type { ResourceQuota } from '../types/quota.js';
import { podConstraintViolation, quotaSelects, usageOf } from './evaluator.js';
import { formatMilli, toResourceList } from './usage.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const pod = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): Pod =>
  ({ metadata: { name: 'p', namespace: 'ns' }, spec, status }) as unknown as Pod;

test('what objects charge, by resource', () => {
  const cases: {
    name: string;
    group: string;
    resource: string;
    obj: Record<string, unknown>;
    want: Record<string, string>;
  }[] = [
    {
      name: 'a pod: counts, requests (with cpu/memory aliases) and limits, init containers as a max',
      group: '',
      resource: 'pods',
      obj: pod({
        containers: [
          { name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m' } } },
          { name: 'b', resources: { requests: { cpu: '150m' } } },
        ],
        initContainers: [{ name: 'i', resources: { requests: { cpu: '1' } } }],
      }),
      want: {
        'count/pods': '1',
        cpu: '1',
        'limits.cpu': '200m',
        memory: '64Mi',
        pods: '1',
        'requests.cpu': '1',
        'requests.memory': '64Mi',
      },
    },
    {
      name: 'a terminal pod charges only count/pods',
      group: '',
      resource: 'pods',
      obj: pod({ containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] }, { phase: 'Succeeded' }),
      want: { 'count/pods': '1' },
    },
    {
      name: 'a NodePort service charges its ports',
      group: '',
      resource: 'services',
      obj: { spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } },
      want: { 'count/services': '1', services: '1', 'services.nodeports': '2' },
    },
    {
      name: 'a LoadBalancer service',
      group: '',
      resource: 'services',
      obj: { spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
      want: { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' },
    },
    {
      name: 'a claim charges storage, also per storage class',
      group: '',
      resource: 'persistentvolumeclaims',
      obj: { spec: { storageClassName: 'gold', resources: { requests: { storage: '10Gi' } } } },
      want: {
        'count/persistentvolumeclaims': '1',
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
        'gold.storageclass.storage.k8s.io/requests.storage': '10Gi',
        persistentvolumeclaims: '1',
        'requests.storage': '10Gi',
      },
    },
    {
      name: 'a configmap',
      group: '',
      resource: 'configmaps',
      obj: {},
      want: { configmaps: '1', 'count/configmaps': '1' },
    },
    { name: 'a deployment', group: 'apps', resource: 'deployments', obj: {}, want: { 'count/deployments.apps': '1' } },
  ];
  for (const c of cases) assert.deepEqual(toResourceList(usageOf(c.group, c.resource, c.obj, NOW)), c.want, c.name);
});

test('quota scopes select pods', () => {
  const bestEffort = pod({ containers: [{ name: 'a' }] });
  const burstable = pod({
    containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }],
    activeDeadlineSeconds: 30,
    priorityClassName: 'high',
  });
  const quota = (spec: ResourceQuota['spec']): ResourceQuota => ({ spec }) as ResourceQuota;
  const cases: [ResourceQuota['spec'], Pod, boolean][] = [
    [{ scopes: ['BestEffort'] }, bestEffort, true],
    [{ scopes: ['BestEffort'] }, burstable, false],
    [{ scopes: ['NotBestEffort'] }, burstable, true],
    [{ scopes: ['Terminating'] }, burstable, true],
    [{ scopes: ['NotTerminating'] }, burstable, false],
    [{ scopes: ['NotTerminating'] }, bestEffort, true],
    [
      { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
      burstable,
      true,
    ],
    [
      { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }] } },
      burstable,
      false,
    ],
    [{ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } }, bestEffort, false],
  ];
  for (const [spec, p, want] of cases)
    assert.equal(quotaSelects(quota(spec), '', 'pods', p), want, JSON.stringify(spec));
  assert.equal(
    quotaSelects(quota({ scopes: ['BestEffort'] }), '', 'configmaps', {}),
    false,
    'scoped quotas select pods only',
  );
  assert.equal(quotaSelects(quota({}), '', 'configmaps', {}), true);
});

test('cpu and memory quotas require each container to set them', () => {
  const p = pod({
    containers: [
      { name: 'a', resources: { requests: { cpu: '1' } } },
      { name: 'b', resources: {} },
    ],
  });
  assert.equal(podConstraintViolation(p, ['pods']), '');
  assert.equal(podConstraintViolation(p, ['requests.cpu', 'pods']), 'must specify requests.cpu for: b');
  assert.equal(
    podConstraintViolation(p, ['limits.cpu', 'requests.memory']),
    'must specify limits.cpu for: a,b; requests.memory for: a,b',
  );
});

test('quantities format as upstream prints sums', () => {
  assert.deepEqual(
    [0, 500, 1000, 2500, 1024_000, 128 * 2 ** 20 * 1000, 5e9 * 1000, 1e6 * 1000 + 1000].map(formatMilli),
    ['0', '500m', '1', '2500m', '1Ki', '128Mi', '5G', '1000001'],
  );
});
