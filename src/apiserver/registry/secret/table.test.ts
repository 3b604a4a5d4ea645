import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { secretTable } from './table.js';
import { meta, now } from '../printers/testing.js';

test('secrets count their data and stringData keys once each', () => {
  const secret = {
    metadata: meta('s'),
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'x', 'tls.key': 'y' },
    stringData: { 'tls.key': 'z', ca: 'q' },
  };
  assert.deepEqual(printRow(secretTable, secret, now).cells, ['s', 'kubernetes.io/tls', 3, '45s']);
});
