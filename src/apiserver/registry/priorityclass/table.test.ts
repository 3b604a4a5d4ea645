import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { priorityClassTable } from './table.js';
import { meta, now } from '../printers/testing.js';

test('priorityclasses: value, global default and preemption policy', () => {
  assert.deepEqual(
    columnDefinitions(priorityClassTable).map((c) => [c.name, c.type, c.priority]),
    [
      ['Name', 'string', 0],
      ['Value', 'integer', 0],
      ['Global-Default', 'boolean', 0],
      ['Age', 'string', 0],
      ['PreemptionPolicy', 'string', 0],
    ],
  );
  const pc = { metadata: meta('system-node-critical'), value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' };
  assert.deepEqual(printRow(priorityClassTable, pc, now).cells, [
    'system-node-critical',
    2000001000,
    false,
    '45s',
    'PreemptLowerPriority',
  ]);
});
