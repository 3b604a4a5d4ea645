import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from './index.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const meta = { name: 'web', namespace: 'default', creationTimestamp: new Date(now - 5 * 3_600_000).toISOString() };

test('service columns', () => {
  assert.deepEqual(
    columnDefinitions('services').map((c) => `${c.name}:${c.priority}`),
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
  assert.deepEqual(printRow('services', svc, now).cells, [
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
  assert.deepEqual(printRow('services', svc, now).cells, [
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
  assert.deepEqual(printRow('services', headless, now).cells.slice(1, 5), ['ClusterIP', 'None', '<none>', '<none>']);
  const pending = {
    metadata: meta,
    spec: { type: 'LoadBalancer', clusterIPs: ['10.96.1.1'], ports: [{ port: 80, nodePort: 31000 }] },
  };
  assert.equal(printRow('services', pending, now).cells[3], '<pending>');
  const lb = {
    ...pending,
    status: {
      loadBalancer: { ingress: [{ ip: '203.0.113.20' }, { hostname: 'a-very-long-hostname.elb.example.com' }] },
    },
  };
  assert.equal(printRow('services', lb, now).cells[3], '203.0.113.20,a-very-long-hostname.elb.example.com');
  const ext = { metadata: meta, spec: { type: 'ExternalName', externalName: 'db.example.com' } };
  assert.deepEqual(printRow('services', ext, now).cells.slice(1, 5), [
    'ExternalName',
    '<none>',
    'db.example.com',
    '<none>',
  ]);
});

test('endpoints list up to three addresses then "+ N more..."', () => {
  const ep = {
    metadata: meta,
    subsets: [
      {
        addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }, { ip: 'fd00::3' }, { ip: '10.1.0.4' }],
        ports: [{ name: 'http', port: 8080 }],
      },
    ],
  };
  assert.deepEqual(printRow('endpoints', ep, now).cells, [
    'web',
    '10.1.0.1:8080,10.1.0.2:8080,[fd00::3]:8080 + 1 more...',
    '5h',
  ]);
  assert.equal(printRow('endpoints', { metadata: meta }, now).cells[1], '<none>');
});

test('endpointslices show address type, ports and endpoints', () => {
  assert.deepEqual(
    columnDefinitions('endpointslices').map((c) => c.name),
    ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'],
  );
  const slice = {
    metadata: { ...meta, name: 'web-abc12' },
    addressType: 'IPv4',
    ports: [
      { name: 'http', port: 8080 },
      { name: 'any', port: null },
    ],
    endpoints: [{ addresses: ['10.1.0.1'] }, { addresses: ['10.1.0.2'] }],
  };
  assert.deepEqual(printRow('endpointslices', slice, now).cells, [
    'web-abc12',
    'IPv4',
    '8080,any',
    '10.1.0.1,10.1.0.2',
    '5h',
  ]);
  const empty = { metadata: meta, addressType: 'IPv4', ports: null, endpoints: [] };
  assert.deepEqual(printRow('endpointslices', empty, now).cells.slice(2, 4), ['<unset>', '<unset>']);
});
