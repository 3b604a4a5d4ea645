import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makePod, reasonOf } from '../../testing/wrappers.js';
import { schedulingGates } from './index.js';

const cases: { name: string; gates?: { name: string }[]; want: string }[] = [
  { name: 'a pod without gates is enqueued', want: '' },
  { name: 'an empty gate list is no gate', gates: [], want: '' },
  {
    name: 'a gated pod waits, naming its gates',
    gates: [{ name: 'example.com/quota' }, { name: 'example.com/volume' }],
    want: 'waiting for scheduling gates: example.com/quota, example.com/volume',
  },
];

for (const c of cases) {
  test(`SchedulingGates PreEnqueue: ${c.name}`, () => {
    assert.equal(
      reasonOf(
        schedulingGates().preEnqueue(makePod('p', c.gates !== undefined ? { spec: { schedulingGates: c.gates } } : {})),
      ),
      c.want,
    );
  });
}
