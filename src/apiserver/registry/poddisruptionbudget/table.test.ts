import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { podDisruptionBudgetTable } from './table.js';
import { meta, now } from '../printers/testing.js';

test('poddisruptionbudgets print N/A for the bound they do not set', () => {
  const pdb = { metadata: meta('web'), spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } };
  assert.deepEqual(printRow(podDisruptionBudgetTable, pdb, now).cells, ['web', '50%', 'N/A', 1, '45s']);
  const pdb2 = { metadata: meta('db'), spec: { maxUnavailable: 1 } };
  assert.deepEqual(printRow(podDisruptionBudgetTable, pdb2, now).cells, ['db', 'N/A', '1', 0, '45s']);
});
