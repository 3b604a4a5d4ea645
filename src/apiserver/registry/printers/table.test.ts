import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configMapTable } from '../configmap/table.js';
import { namespaceTable } from '../namespace/table.js';
import { podTable } from '../pod/table.js';
import { columnDefinitions, defaultTable, printRow, printTable } from './index.js';
import { ago, meta, now } from './testing.js';

test('printTable produces the meta.k8s.io/v1 Table wire shape', () => {
  const table = printTable(namespaceTable, [{ metadata: meta('default'), status: { phase: 'Active' } }], {
    now,
    resourceVersion: '115',
    continue: 'tok',
    remainingItemCount: 3,
  });
  assert.deepEqual(JSON.parse(JSON.stringify(table)), {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '115', continue: 'tok', remainingItemCount: 3 },
    columnDefinitions: columnDefinitions(namespaceTable),
    rows: [
      {
        cells: ['default', 'Active', '45s'],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { name: 'default', uid: 'uid-default', creationTimestamp: ago(45_000) },
        },
      },
    ],
  });
  for (const c of table.columnDefinitions)
    assert.deepEqual(Object.keys(c), ['name', 'type', 'format', 'description', 'priority']);
});

test('includeObject selects the row object; metadata keeps the namespace for -A', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cfg', 'team-a'), data: { a: '1' } };
  const asMeta = printTable(configMapTable, [cm], { now }).rows[0].object as { metadata: { namespace: string } };
  assert.equal(asMeta.metadata.namespace, 'team-a');
  assert.equal(printTable(configMapTable, [cm], { now, includeObject: 'Object' }).rows[0].object, cm);
  assert.equal(printTable(configMapTable, [cm], { now, includeObject: 'None' }).rows[0].object, null);
});

test('noHeaders drops column definitions, as for watch events after the first', () => {
  const t = printTable(podTable, [], { now, noHeaders: true });
  assert.deepEqual(t.columnDefinitions, []);
  assert.deepEqual(t.metadata, {});
});

test('the default table is Name and Age', () => {
  assert.deepEqual(
    columnDefinitions(defaultTable).map((c) => c.name),
    ['Name', 'Age'],
  );
  assert.deepEqual(printRow(defaultTable, { metadata: meta('w') }, now).cells, ['w', '45s']);
});

test('columnDefinitions returns copies callers may change', () => {
  columnDefinitions(podTable)[0].name = 'changed';
  assert.equal(columnDefinitions(podTable)[0].name, 'Name');
});
