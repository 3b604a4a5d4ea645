import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { eventTable } from './table.js';
import { ago, now } from '../printers/testing.js';

test('event columns: LAST SEEN TYPE REASON OBJECT MESSAGE, the rest wide', () => {
  assert.deepEqual(
    columnDefinitions(eventTable).map((c) => `${c.name}:${c.priority}`),
    [
      'Last Seen:0',
      'Type:0',
      'Reason:0',
      'Object:0',
      'Subobject:1',
      'Source:1',
      'Message:0',
      'First Seen:1',
      'Count:1',
      'Name:1',
    ],
  );
});

test('a repeated core event', () => {
  const e = {
    metadata: { name: 'web-0.17f', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web-0', fieldPath: 'spec.containers{app}' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container app\n',
    type: 'Warning',
    source: { component: 'kubelet', host: 'node-a' },
    firstTimestamp: ago(52_000),
    lastTimestamp: ago(8_000),
    count: 5,
  };
  assert.deepEqual(printRow(eventTable, e, now).cells, [
    '8s',
    'Warning',
    'BackOff',
    'pod/web-0',
    'spec.containers{app}',
    'kubelet, node-a',
    'Back-off restarting failed container app',
    '52s',
    5,
    'web-0.17f',
  ]);
});

test('an events.k8s.io style event uses eventTime, series and reporting fields', () => {
  const e = {
    metadata: { name: 'sched.1' },
    involvedObject: { kind: 'Node' },
    reason: 'Scheduled',
    message: 'ok',
    type: 'Normal',
    eventTime: ago(600_000),
    reportingComponent: 'default-scheduler',
    reportingInstance: 'sched-1',
  };
  const cells = printRow(eventTable, e, now).cells;
  assert.deepEqual(
    [cells[0], cells[3], cells[5], cells[7], cells[8]],
    ['10m', 'node', 'default-scheduler, sched-1', '10m', 1],
  );
  const series = { ...e, series: { count: 7, lastObservedTime: ago(30_000) } };
  assert.deepEqual(
    [printRow(eventTable, series, now).cells[0], printRow(eventTable, series, now).cells[8]],
    ['30s', 7],
  );
});
