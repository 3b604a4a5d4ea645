import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod, makeSnapshot, runFilter } from '../../testing/wrappers.js';
import { nodeName } from './index.js';

const MISMATCH = "node(s) didn't match the requested node name";
const cases: { name: string; nodeName?: string; want: Record<string, string> }[] = [
  { name: 'a pod without spec.nodeName fits every node (PreFilter skips)', want: { n1: '', n2: '' } },
  { name: 'a pod naming a node fits only that node', nodeName: 'n2', want: { n1: MISMATCH, n2: '' } },
  { name: 'a pod naming an unknown node fits none', nodeName: 'n9', want: { n1: MISMATCH, n2: MISMATCH } },
];

for (const c of cases) {
  test(`NodeName Filter: ${c.name}`, () => {
    const snap = makeSnapshot([makeNode('n1'), makeNode('n2')]);
    assert.deepEqual(
      runFilter(nodeName(), makePod('p', c.nodeName !== undefined ? { spec: { nodeName: c.nodeName } } : {}), snap),
      c.want,
    );
  });
}
