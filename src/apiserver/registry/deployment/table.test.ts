import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { deploymentTable } from './table.js';
import { ago, now, template } from '../printers/testing.js';

test('deployment columns and cells', () => {
  assert.deepEqual(
    columnDefinitions(deploymentTable).map((c) => [c.name, c.type, c.priority]),
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
  assert.deepEqual(printRow(deploymentTable, d, now).cells, [
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
  assert.deepEqual(printRow(deploymentTable, d, now).cells.slice(0, 5), ['new', '0/1', 0, 0, '4s']);
  assert.equal(printRow(deploymentTable, d, now).cells[7], '');
});
