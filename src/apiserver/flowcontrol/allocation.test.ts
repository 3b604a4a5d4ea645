import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocate } from './allocation.js';

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

test('idle levels keep their nominal seats', () => {
  const seats = allocate(
    [
      { nominal: 100, min: 50, max: 600, demand: 0 },
      { nominal: 200, min: 20, max: 600, demand: 0 },
    ],
    300,
  );
  assert.deepEqual(seats, [100, 200]);
});

test('a busy level borrows what an idle one lends, never past its borrowing limit', () => {
  const busyIdle = allocate(
    [
      { nominal: 100, min: 100, max: 150, demand: 300 },
      { nominal: 200, min: 20, max: 600, demand: 0 },
    ],
    300,
  );
  assert.deepEqual(busyIdle, [150, 150]);
  const unlimited = allocate(
    [
      { nominal: 100, min: 100, max: 300, demand: 300 },
      { nominal: 200, min: 20, max: 600, demand: 0 },
    ],
    300,
  );
  assert.deepEqual(unlimited, [280, 20]);
});

test('when both are busy each keeps at least its unlendable seats and the total holds', () => {
  const seats = allocate(
    [
      { nominal: 100, min: 75, max: 300, demand: 1000 },
      { nominal: 200, min: 20, max: 600, demand: 1000 },
    ],
    300,
  );
  assert.equal(sum(seats), 300);
  assert.deepEqual(seats, [100, 200]);
});
