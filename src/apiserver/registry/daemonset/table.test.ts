import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { meta, now, template } from '../printers/testing.js';
import { daemonSetTable } from './table.js';

test('daemonset columns and cells, the node selector and template in the row', () => {
  assert.deepEqual(
    columnDefinitions(daemonSetTable).map((c) => `${c.name}:${c.priority}`),
    [
      'Name:0',
      'Desired:0',
      'Current:0',
      'Ready:0',
      'Up-to-date:0',
      'Available:0',
      'Node Selector:0',
      'Age:0',
      'Containers:1',
      'Images:1',
      'Selector:1',
    ],
  );
  const ds = {
    metadata: meta('agent'),
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { ...template, spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux' } } },
    },
    status: {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 3,
      numberAvailable: 2,
    },
  };
  assert.deepEqual(printRow(daemonSetTable, ds, now).cells, [
    'agent',
    3,
    3,
    2,
    3,
    2,
    'kubernetes.io/os=linux',
    '45s',
    'app,log',
    'nginx:1.27,fluent-bit:3',
    'app=web',
  ]);
});
