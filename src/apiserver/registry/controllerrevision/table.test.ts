import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printRow } from '../printers/index.js';
import { meta, now } from '../printers/testing.js';
import { controllerRevisionTable } from './table.js';

test('a ControllerRevision names its controller as kind.group/name, or <none>', () => {
  const owned = {
    metadata: {
      ...meta('web-5d8f'),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'web', uid: 'u1', controller: true }],
    },
    revision: 3,
  };
  assert.deepEqual(printRow(controllerRevisionTable, owned, now).cells, ['web-5d8f', 'daemonset.apps/web', 3, '45s']);
  const core = {
    metadata: {
      ...meta('x'),
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u2', controller: true }],
    },
  };
  assert.equal(printRow(controllerRevisionTable, core, now).cells[1], 'pod/p');
  assert.deepEqual(printRow(controllerRevisionTable, { metadata: meta('orphan') }, now).cells.slice(1, 3), [
    '<none>',
    0,
  ]);
});
