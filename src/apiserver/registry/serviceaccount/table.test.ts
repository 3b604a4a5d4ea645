import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { serviceAccountTable } from './table.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const created = new Date(now - 45_000).toISOString();
const meta = (name: string, namespace?: string) => ({
  name,
  namespace,
  uid: `uid-${name}`,
  creationTimestamp: created,
});

test('serviceaccounts count their secrets', () => {
  assert.deepEqual(printRow(serviceAccountTable, { metadata: meta('default'), secrets: [{ name: 't' }] }, now).cells, [
    'default',
    1,
    '45s',
  ]);
});
