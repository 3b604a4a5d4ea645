import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultFleetProcesses, fleetSlices } from './fleet_slices.js';

test('slices cover every node index exactly once, contiguous and balanced', () => {
  for (const [count, n] of [
    [10, 3],
    [7_500, 3],
    [5, 8],
    [1, 1],
  ] as const) {
    const slices = fleetSlices(count, n);
    const indexes = slices.flatMap((s) => Array.from({ length: s.count }, (_, i) => s.firstIndex + i));
    assert.deepEqual(
      indexes,
      Array.from({ length: count }, (_, i) => i),
    );
    const sizes = slices.map((s) => s.count);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${count}/${n}: ${sizes.join(',')}`);
    assert.equal(slices.length, Math.min(n, count));
  }
  assert.deepEqual(fleetSlices(10, 3), [
    { firstIndex: 0, count: 4 },
    { firstIndex: 4, count: 3 },
    { firstIndex: 7, count: 3 },
  ]);
});

test('slices start at the given first index', () => {
  assert.deepEqual(fleetSlices(4, 2, 100), [
    { firstIndex: 100, count: 2 },
    { firstIndex: 102, count: 2 },
  ]);
});

test('the default process count is one per 1,250 nodes', () => {
  assert.equal(defaultFleetProcesses(0), 1);
  assert.equal(defaultFleetProcesses(1_250), 1);
  assert.equal(defaultFleetProcesses(1_251), 2);
  assert.equal(defaultFleetProcesses(2_500), 2);
  assert.equal(defaultFleetProcesses(7_500), 6);
  assert.equal(defaultFleetProcesses(10_000), 8);
});
