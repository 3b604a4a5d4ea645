import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
} from './default_rate_limiters.js';

test('per-item backoff doubles from 5 ms and caps at 1000 s', () => {
  const l = new ItemExponentialFailureRateLimiter<string>();
  const got = Array.from({ length: 5 }, () => l.when('a'));
  assert.deepEqual(got, [5, 10, 20, 40, 80]);
  assert.equal(l.when('b'), 5, 'items are independent');
  for (let i = 0; i < 100; i++) l.when('a');
  assert.equal(l.when('a'), 1_000_000);
  l.forget('a');
  assert.equal(l.when('a'), 5);
});

test('the overall bucket allows a burst of 100, then 10 per second', () => {
  const clock = new FakeClock();
  const l = new BucketRateLimiter<string>(10, 100, clock);
  for (let i = 0; i < 100; i++) assert.equal(l.when(`k${i}`), 0);
  assert.equal(Math.round(l.when('x')), 100);
  assert.equal(Math.round(l.when('y')), 200);
  clock.step(1000);
  // Ten tokens refilled; two were already owed.
  assert.equal(Math.round(l.when('z')), 0);
});

test('the default controller limiter takes the larger of both', () => {
  const clock = new FakeClock();
  const l = defaultControllerRateLimiter<string>(clock);
  assert.equal(l.when('a'), 5);
  assert.equal(l.when('a'), 10);
  for (let i = 0; i < 98; i++) l.when(`k${i}`);
  // Bucket exhausted: the next item waits for a token though its own backoff is 5 ms.
  assert.equal(Math.round(l.when('fresh')), 100);
});
