import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { configMapTable } from './table.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const created = new Date(now - 45_000).toISOString();
const meta = (name: string, namespace?: string) => ({
  name,
  namespace,
  uid: `uid-${name}`,
  creationTimestamp: created,
});

test('configmaps count their data and binaryData entries', () => {
  assert.deepEqual(
    printRow(configMapTable, { metadata: meta('c'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, now).cells,
    ['c', 3, '45s'],
  );
});
