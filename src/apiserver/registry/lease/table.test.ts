import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnDefinitions, printRow } from '../printers/index.js';
import { leaseTable } from './table.js';
import { meta, now } from '../printers/testing.js';

test('leases show the holder', () => {
  assert.deepEqual(
    columnDefinitions(leaseTable).map((c) => c.name),
    ['Name', 'Holder', 'Age'],
  );
  assert.deepEqual(
    printRow(leaseTable, { metadata: meta('node-a', 'kube-node-lease'), spec: { holderIdentity: 'node-a' } }, now)
      .cells,
    ['node-a', 'node-a', '45s'],
  );
  assert.equal(printRow(leaseTable, { metadata: meta('l'), spec: {} }, now).cells[1], '');
});
