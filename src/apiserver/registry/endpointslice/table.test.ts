import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { endpointSliceTable } from './table.js';
import { now } from '../printers/testing.js';

const meta = { name: 'web', namespace: 'default', creationTimestamp: new Date(now - 5 * 3_600_000).toISOString() };

test('endpointslices show address type, ports and endpoints', () => {
  assert.deepEqual(
    columnDefinitions(endpointSliceTable).map((c) => c.name),
    ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'],
  );
  const slice = {
    metadata: { ...meta, name: 'web-abc12' },
    addressType: 'IPv4',
    ports: [
      { name: 'http', port: 8080 },
      { name: 'any', port: null },
    ],
    endpoints: [{ addresses: ['10.1.0.1'] }, { addresses: ['10.1.0.2'] }],
  };
  assert.deepEqual(printRow(endpointSliceTable, slice, now).cells, [
    'web-abc12',
    'IPv4',
    '8080,any',
    '10.1.0.1,10.1.0.2',
    '5h',
  ]);
  const empty = { metadata: meta, addressType: 'IPv4', ports: null, endpoints: [] };
  assert.deepEqual(printRow(endpointSliceTable, empty, now).cells.slice(2, 4), ['<unset>', '<unset>']);
});
