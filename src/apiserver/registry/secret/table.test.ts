import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { secretTable } from './table.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const created = new Date(now - 45_000).toISOString();
const meta = (name: string, namespace?: string) => ({
  name,
  namespace,
  uid: `uid-${name}`,
  creationTimestamp: created,
});

test('secrets count their data and stringData keys once each', () => {
  const secret = {
    metadata: meta('s'),
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'x', 'tls.key': 'y' },
    stringData: { 'tls.key': 'z', ca: 'q' },
  };
  assert.deepEqual(printRow(secretTable, secret, now).cells, ['s', 'kubernetes.io/tls', 3, '45s']);
});
