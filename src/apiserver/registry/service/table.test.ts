import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { serviceTable } from './table.js';
import { now } from '../printers/testing.js';

const meta = { name: 'web', namespace: 'default', creationTimestamp: new Date(now - 5 * 3_600_000).toISOString() };

test('service columns', () => {
  assert.deepEqual(
    columnDefinitions(serviceTable).map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Type:0', 'Cluster-IP:0', 'External-IP:0', 'Port(s):0', 'Age:0', 'Selector:1'],
  );
});

test('a ClusterIP service', () => {
  const svc = {
    metadata: meta,
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ports: [
        { port: 53, protocol: 'UDP' },
        { port: 53, protocol: 'TCP' },
      ],
      selector: { 'k8s-app': 'kube-dns' },
    },
  };
  assert.deepEqual(printRow(serviceTable, svc, now).cells, [
    'web',
    'ClusterIP',
    '10.96.0.10',
    '<none>',
    '53/UDP,53/TCP',
    '5h',
    'k8s-app=kube-dns',
  ]);
});

test('a NodePort service shows port:nodePort', () => {
  const svc = {
    metadata: meta,
    spec: {
      type: 'NodePort',
      clusterIPs: ['10.96.4.2'],
      ports: [
        { port: 80, nodePort: 30080, protocol: 'TCP' },
        { port: 443, nodePort: 30443 },
      ],
      externalIPs: ['198.51.100.9'],
    },
  };
  assert.deepEqual(printRow(serviceTable, svc, now).cells, [
    'web',
    'NodePort',
    '10.96.4.2',
    '198.51.100.9',
    '80:30080/TCP,443:30443/TCP',
    '5h',
    '<none>',
  ]);
});

test('headless, LoadBalancer and ExternalName services', () => {
  const headless = { metadata: meta, spec: { clusterIP: 'None', clusterIPs: ['None'] } };
  assert.deepEqual(printRow(serviceTable, headless, now).cells.slice(1, 5), ['ClusterIP', 'None', '<none>', '<none>']);
  const pending = {
    metadata: meta,
    spec: { type: 'LoadBalancer', clusterIPs: ['10.96.1.1'], ports: [{ port: 80, nodePort: 31000 }] },
  };
  assert.equal(printRow(serviceTable, pending, now).cells[3], '<pending>');
  const lb = {
    ...pending,
    status: {
      loadBalancer: { ingress: [{ ip: '203.0.113.20' }, { hostname: 'a-very-long-hostname.elb.example.com' }] },
    },
  };
  assert.equal(printRow(serviceTable, lb, now).cells[3], '203.0.113.20,a-very-long-hostname.elb.example.com');
  const ext = { metadata: meta, spec: { type: 'ExternalName', externalName: 'db.example.com' } };
  assert.deepEqual(printRow(serviceTable, ext, now).cells.slice(1, 5), [
    'ExternalName',
    '<none>',
    'db.example.com',
    '<none>',
  ]);
});
