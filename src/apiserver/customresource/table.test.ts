import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customResourcePrinter } from './table.js';

test('custom resource printer columns read JSONPaths; dates print as ages', () => {
  const p = customResourcePrinter([
    { name: 'Color', type: 'string', jsonPath: '.spec.color' },
    { name: 'Since', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  assert.deepEqual(
    p.columns.map((c) => c.name),
    ['Name', 'Color', 'Since'],
  );
  const row = p.print(
    { metadata: { name: 'w', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { color: 'red' } },
    Date.parse('2026-01-01T00:05:00Z'),
  );
  assert.deepEqual(row.cells, ['w', 'red', '5m']);
});
