import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { nodeTable } from './table.js';
import { now } from '../printers/testing.js';

function node(over: {
  labels?: Record<string, string>;
  unschedulable?: boolean;
  conditions?: object[];
  addresses?: object[];
}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-a', creationTimestamp: new Date(now - 5 * 60_000).toISOString(), labels: over.labels },
    spec: { unschedulable: over.unschedulable },
    status: {
      conditions: over.conditions ?? [{ type: 'Ready', status: 'True' }],
      addresses: over.addresses ?? [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'node-a' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.32.0',
        osImage: 'Ubuntu 24.04 LTS',
        kernelVersion: '6.8.0-45-generic',
        containerRuntimeVersion: 'containerd://1.7.22',
      },
    },
  };
}

test('node columns match upstream, wide ones at priority 1', () => {
  assert.deepEqual(
    columnDefinitions(nodeTable).map((c) => `${c.name}:${c.priority}`),
    [
      'Name:0',
      'Status:0',
      'Roles:0',
      'Age:0',
      'Version:0',
      'Internal-IP:1',
      'External-IP:1',
      'OS-Image:1',
      'Kernel-Version:1',
      'Container-Runtime:1',
    ],
  );
});

test('a ready node without roles', () => {
  assert.deepEqual(printRow(nodeTable, node({}), now).cells, [
    'node-a',
    'Ready',
    '<none>',
    '5m',
    'v1.32.0',
    '10.0.0.1',
    '<none>',
    'Ubuntu 24.04 LTS',
    '6.8.0-45-generic',
    'containerd://1.7.22',
  ]);
});

test('NotReady, Unknown and cordoned nodes', () => {
  const notReady = node({ conditions: [{ type: 'Ready', status: 'False' }] });
  assert.equal(printRow(nodeTable, notReady, now).cells[1], 'NotReady');
  const unknownCond = node({ conditions: [{ type: 'Ready', status: 'Unknown' }] });
  assert.equal(printRow(nodeTable, unknownCond, now).cells[1], 'NotReady');
  assert.equal(printRow(nodeTable, node({ conditions: [] }), now).cells[1], 'Unknown');
  assert.equal(printRow(nodeTable, node({ unschedulable: true }), now).cells[1], 'Ready,SchedulingDisabled');
});

test('roles come from node-role labels and the legacy role label, sorted', () => {
  const n = node({
    labels: {
      'node-role.kubernetes.io/worker': '',
      'node-role.kubernetes.io/control-plane': '',
      'node-role.kubernetes.io/': '',
      'kubernetes.io/role': 'ingress',
    },
  });
  assert.equal(printRow(nodeTable, n, now).cells[2], 'control-plane,ingress,worker');
});

test('missing node info prints <unknown> in the wide columns', () => {
  const n = node({ addresses: [{ type: 'ExternalIP', address: '203.0.113.7' }] });
  n.status.nodeInfo = {} as typeof n.status.nodeInfo;
  assert.deepEqual(printRow(nodeTable, n, now).cells.slice(4), [
    '',
    '<none>',
    '203.0.113.7',
    '<unknown>',
    '<unknown>',
    '<unknown>',
  ]);
});
