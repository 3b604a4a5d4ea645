import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Toleration } from '../../../api/index.js';
import { makeNode, makePod, makeSnapshot, runFilter } from '../../testing/wrappers.js';
import { nodeUnschedulable } from './index.js';

const cases: { name: string; tolerations?: Toleration[]; want: Record<string, string> }[] = [
  { name: 'a cordoned node rejects a pod', want: { ready: '', cordoned: 'node(s) were unschedulable' } },
  {
    name: 'a pod tolerating the unschedulable taint passes',
    tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
    want: { ready: '', cordoned: '' },
  },
  {
    name: 'operator "" (Equal) with the empty value tolerates it too',
    tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: '', effect: 'NoSchedule' }],
    want: { ready: '', cordoned: '' },
  },
  {
    name: 'a toleration of another taint does not help',
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }],
    want: { ready: '', cordoned: 'node(s) were unschedulable' },
  },
];

for (const c of cases) {
  test(`NodeUnschedulable Filter: ${c.name}`, () => {
    const snap = makeSnapshot([makeNode('ready'), makeNode('cordoned', { unschedulable: true })]);
    assert.deepEqual(
      runFilter(
        nodeUnschedulable(),
        makePod('p', c.tolerations !== undefined ? { spec: { tolerations: c.tolerations } } : {}),
        snap,
      ),
      c.want,
    );
  });
}
