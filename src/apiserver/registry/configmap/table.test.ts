import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { configMapTable } from './table.js';
import { meta, now } from '../printers/testing.js';

test('configmaps count their data and binaryData entries', () => {
  assert.deepEqual(
    printRow(configMapTable, { metadata: meta('c'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, now).cells,
    ['c', 3, '45s'],
  );
});
