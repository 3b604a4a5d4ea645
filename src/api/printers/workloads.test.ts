import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from './index.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const ago = (ms: number) => new Date(now - ms).toISOString();
const template = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.27' },
      { name: 'log', image: 'fluent-bit:3' },
    ],
  },
};

test('deployment columns and cells', () => {
  assert.deepEqual(
    columnDefinitions('deployments').map((c) => [c.name, c.type, c.priority]),
    [
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Up-to-date', 'string', 0],
      ['Available', 'string', 0],
      ['Age', 'string', 0],
      ['Containers', 'string', 1],
      ['Images', 'string', 1],
      ['Selector', 'string', 1],
    ],
  );
  const d = {
    metadata: { name: 'web', namespace: 'default', creationTimestamp: ago(3 * 86_400_000) },
    spec: {
      replicas: 3,
      selector: {
        matchLabels: { app: 'web', tier: 'fe' },
        matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }],
      },
      template,
    },
    status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  };
  assert.deepEqual(printRow('deployments', d, now).cells, [
    'web',
    '2/3',
    3,
    2,
    '3d',
    'app,log',
    'nginx:1.27,fluent-bit:3',
    'app=web,env in (dev,prod),tier=fe',
  ]);
});

test('a new deployment with no status and default replicas', () => {
  const d = { metadata: { name: 'new', creationTimestamp: ago(4000) }, spec: { template } };
  assert.deepEqual(printRow('deployments', d, now).cells.slice(0, 5), ['new', '0/1', 0, 0, '4s']);
  assert.equal(printRow('deployments', d, now).cells[7], '');
});

test('replicaset cells are integers and the selector uses FormatLabelSelector', () => {
  const rs = {
    metadata: { name: 'web-7d9c', creationTimestamp: ago(90_000) },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template },
    status: { replicas: 3, readyReplicas: 1 },
  };
  assert.deepEqual(printRow('replicasets', rs, now).cells, [
    'web-7d9c',
    3,
    3,
    1,
    '90s',
    'app,log',
    'nginx:1.27,fluent-bit:3',
    'app=web',
  ]);
  const empty = { ...rs, spec: { ...rs.spec, selector: {} } };
  assert.equal(printRow('replicasets', empty, now).cells[7], '<none>');
});

test('job columns and a completed job', () => {
  assert.deepEqual(
    columnDefinitions('jobs').map((c) => c.name),
    ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector'],
  );
  const job = {
    metadata: { name: 'echo-job', creationTimestamp: ago(7000) },
    spec: {
      completions: 1,
      parallelism: 1,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'abc' } },
      template,
    },
    status: {
      succeeded: 1,
      startTime: ago(7000),
      completionTime: ago(3000),
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True' },
      ],
    },
  };
  assert.deepEqual(printRow('jobs', job, now).cells.slice(0, 5), ['echo-job', 'Complete', '1/1', '4s', '7s']);
  assert.equal(printRow('jobs', job, now).cells[7], 'batch.kubernetes.io/controller-uid=abc');
});

test('running, failed, suspended and terminating jobs', () => {
  const base = {
    metadata: { name: 'j', creationTimestamp: ago(600_000) },
    spec: { completions: 4, parallelism: 2, template },
  };
  const runningJob = { ...base, status: { succeeded: 1, startTime: ago(300_000) } };
  assert.deepEqual(printRow('jobs', runningJob, now).cells.slice(1, 4), ['Running', '1/4', '5m']);
  const failed = { ...base, status: { conditions: [{ type: 'Failed', status: 'True' }] } };
  assert.deepEqual(printRow('jobs', failed, now).cells.slice(1, 4), ['Failed', '0/4', '']);
  const suspended = { ...base, status: { conditions: [{ type: 'Suspended', status: 'True' }] } };
  assert.equal(printRow('jobs', suspended, now).cells[1], 'Suspended');
  const terminating = { ...base, metadata: { ...base.metadata, deletionTimestamp: ago(1000) }, status: {} };
  assert.equal(printRow('jobs', terminating, now).cells[1], 'Terminating');
});

test('a work-queue job without completions prints "n/1 of p"', () => {
  const job = { metadata: { name: 'q' }, spec: { parallelism: 5, template }, status: { succeeded: 2 } };
  assert.deepEqual(printRow('jobs', job, now).cells.slice(1, 5), ['Running', '2/1 of 5', '', '<unknown>']);
});
