import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { serviceAccountTable } from './table.js';
import { meta, now } from '../printers/testing.js';

test('serviceaccounts count their secrets', () => {
  assert.deepEqual(printRow(serviceAccountTable, { metadata: meta('default'), secrets: [{ name: 't' }] }, now).cells, [
    'default',
    1,
    '45s',
  ]);
});
