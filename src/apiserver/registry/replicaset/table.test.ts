import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { replicaSetTable } from './table.js';
import { ago, now, template } from '../printers/testing.js';

test('replicaset cells are integers and the selector uses FormatLabelSelector', () => {
  const rs = {
    metadata: { name: 'web-7d9c', creationTimestamp: ago(90_000) },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template },
    status: { replicas: 3, readyReplicas: 1 },
  };
  assert.deepEqual(printRow(replicaSetTable, rs, now).cells, [
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
  assert.equal(printRow(replicaSetTable, empty, now).cells[7], '<none>');
});
