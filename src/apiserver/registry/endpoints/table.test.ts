import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { endpointsTable } from './table.js';
import { now } from '../printers/testing.js';

const meta = { name: 'web', namespace: 'default', creationTimestamp: new Date(now - 5 * 3_600_000).toISOString() };

test('endpoints list up to three addresses then "+ N more..."', () => {
  const ep = {
    metadata: meta,
    subsets: [
      {
        addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }, { ip: 'fd00::3' }, { ip: '10.1.0.4' }],
        ports: [{ name: 'http', port: 8080 }],
      },
    ],
  };
  assert.deepEqual(printRow(endpointsTable, ep, now).cells, [
    'web',
    '10.1.0.1:8080,10.1.0.2:8080,[fd00::3]:8080 + 1 more...',
    '5h',
  ]);
  assert.equal(printRow(endpointsTable, { metadata: meta }, now).cells[1], '<none>');
});
