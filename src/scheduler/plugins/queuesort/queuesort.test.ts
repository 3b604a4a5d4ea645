import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueuedPodInfo } from '../../framework/interface.js';
import { makePod } from '../../testing/wrappers.js';
import { prioritySort } from './index.js';

const queued = (name: string, priority: number, timestamp: number): QueuedPodInfo => ({
  podInfo: makePod(name, { spec: { priority } }),
  timestamp,
  initialAttemptTimestamp: timestamp,
  attempts: 0,
  unschedulablePlugins: new Set(),
  gatingPlugin: undefined,
  lastError: false,
});

const cases: { name: string; a: QueuedPodInfo; b: QueuedPodInfo; want: boolean }[] = [
  { name: 'higher priority first', a: queued('a', 10, 2), b: queued('b', 1, 1), want: true },
  { name: 'lower priority later', a: queued('a', 1, 1), b: queued('b', 10, 2), want: false },
  { name: 'equal priority: earlier queue time first', a: queued('a', 5, 1), b: queued('b', 5, 2), want: true },
  {
    name: 'equal priority and time: not less (the order is stable)',
    a: queued('a', 5, 1),
    b: queued('b', 5, 1),
    want: false,
  },
];

for (const c of cases) {
  test(`PrioritySort Less: ${c.name}`, () => {
    assert.equal(prioritySort().less(c.a, c.b), c.want);
  });
}
