import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow, printTable, printedResources } from './index.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const created = new Date(now - 45_000).toISOString();
const meta = (name: string, namespace?: string) => ({
  name,
  namespace,
  uid: `uid-${name}`,
  creationTimestamp: created,
});

test('printTable produces the meta.k8s.io/v1 Table wire shape', () => {
  const table = printTable('namespaces', [{ metadata: meta('default'), status: { phase: 'Active' } }], {
    now,
    resourceVersion: '115',
    continue: 'tok',
    remainingItemCount: 3,
  });
  assert.deepEqual(JSON.parse(JSON.stringify(table)), {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '115', continue: 'tok', remainingItemCount: 3 },
    columnDefinitions: columnDefinitions('namespaces'),
    rows: [
      {
        cells: ['default', 'Active', '45s'],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { name: 'default', uid: 'uid-default', creationTimestamp: created },
        },
      },
    ],
  });
  for (const c of table.columnDefinitions)
    assert.deepEqual(Object.keys(c), ['name', 'type', 'format', 'description', 'priority']);
});

test('includeObject selects the row object; metadata keeps the namespace for -A', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cfg', 'team-a'), data: { a: '1' } };
  const asMeta = printTable('configmaps', [cm], { now }).rows[0].object as { metadata: { namespace: string } };
  assert.equal(asMeta.metadata.namespace, 'team-a');
  assert.equal(printTable('configmaps', [cm], { now, includeObject: 'Object' }).rows[0].object, cm);
  assert.equal(printTable('configmaps', [cm], { now, includeObject: 'None' }).rows[0].object, null);
});

test('noHeaders drops column definitions, as for watch events after the first', () => {
  const t = printTable('pods', [], { now, noHeaders: true });
  assert.deepEqual(t.columnDefinitions, []);
  assert.deepEqual(t.metadata, {});
});

test('every row has one cell per column for every printed resource', () => {
  for (const resource of [...printedResources(), 'widgets']) {
    const row = printRow(resource, { metadata: meta('x', 'ns') }, now);
    assert.equal(row.cells.length, columnDefinitions(resource).length, resource);
  }
});

test('unknown resources fall back to Name and Age', () => {
  assert.deepEqual(
    columnDefinitions('widgets').map((c) => c.name),
    ['Name', 'Age'],
  );
  assert.deepEqual(printRow('widgets', { metadata: meta('w') }, now).cells, ['w', '45s']);
});

test('columnDefinitions returns copies callers may change', () => {
  columnDefinitions('pods')[0].name = 'changed';
  assert.equal(columnDefinitions('pods')[0].name, 'Name');
});

test('configmaps, secrets and serviceaccounts count their entries', () => {
  assert.deepEqual(
    printRow('configmaps', { metadata: meta('c'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, now).cells,
    ['c', 3, '45s'],
  );
  const secret = {
    metadata: meta('s'),
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'x', 'tls.key': 'y' },
    stringData: { 'tls.key': 'z', ca: 'q' },
  };
  assert.deepEqual(printRow('secrets', secret, now).cells, ['s', 'kubernetes.io/tls', 3, '45s']);
  assert.deepEqual(printRow('serviceaccounts', { metadata: meta('default'), secrets: [{ name: 't' }] }, now).cells, [
    'default',
    1,
    '45s',
  ]);
});

test('leases show the holder', () => {
  assert.deepEqual(
    columnDefinitions('leases').map((c) => c.name),
    ['Name', 'Holder', 'Age'],
  );
  assert.deepEqual(
    printRow('leases', { metadata: meta('node-a', 'kube-node-lease'), spec: { holderIdentity: 'node-a' } }, now).cells,
    ['node-a', 'node-a', '45s'],
  );
  assert.equal(printRow('leases', { metadata: meta('l'), spec: {} }, now).cells[1], '');
});

test('priorityclasses and poddisruptionbudgets', () => {
  assert.deepEqual(
    columnDefinitions('priorityclasses').map((c) => [c.name, c.type, c.priority]),
    [
      ['Name', 'string', 0],
      ['Value', 'integer', 0],
      ['Global-Default', 'boolean', 0],
      ['Age', 'string', 0],
      ['PreemptionPolicy', 'string', 0],
    ],
  );
  const pc = { metadata: meta('system-node-critical'), value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' };
  assert.deepEqual(printRow('priorityclasses', pc, now).cells, [
    'system-node-critical',
    2000001000,
    false,
    '45s',
    'PreemptLowerPriority',
  ]);
  const pdb = { metadata: meta('web'), spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } };
  assert.deepEqual(printRow('poddisruptionbudgets', pdb, now).cells, ['web', '50%', 'N/A', 1, '45s']);
  const pdb2 = { metadata: meta('db'), spec: { maxUnavailable: 1 } };
  assert.deepEqual(printRow('poddisruptionbudgets', pdb2, now).cells, ['db', 'N/A', '1', 0, '45s']);
});
