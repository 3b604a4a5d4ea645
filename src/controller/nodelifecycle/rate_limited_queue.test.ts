import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { RateLimitedTimedQueue } from './rate_limited_queue.js';

const ok = async (): Promise<{ done: boolean; retryMs: number }> => ({ done: true, retryMs: 0 });

test('try admits one value at once, then one per 1/qps seconds', async () => {
  const clock = new FakeClock();
  const q = new RateLimitedTimedQueue(clock, 0.1);
  for (const n of ['a', 'b', 'c']) assert.ok(q.add(n, ''));
  const seen: string[] = [];
  const pass = (): Promise<void> => q.try(async (v) => (seen.push(v.value), ok()));
  await pass();
  assert.deepEqual(seen, ['a']);
  clock.step(9_900);
  await pass();
  assert.deepEqual(seen, ['a'], 'no token before 10 s');
  clock.step(100);
  await pass();
  assert.deepEqual(seen, ['a', 'b']);
});

test('a processed value stays in the set until removed, so it is not queued again', async () => {
  const clock = new FakeClock();
  const q = new RateLimitedTimedQueue(clock, 1);
  q.add('a', '');
  await q.try(ok);
  assert.equal(q.add('a', ''), false);
  assert.ok(q.remove('a'));
  assert.ok(q.add('a', ''));
});

test('rate 0 admits nothing; swapping from a drained bucket keeps the new one drained', async () => {
  const clock = new FakeClock();
  const q = new RateLimitedTimedQueue(clock, 0);
  q.add('a', '');
  await q.try(ok);
  assert.deepEqual(q.queued(), ['a']);
  q.swapLimiter(0.1);
  await q.try(ok);
  assert.deepEqual(q.queued(), ['a'], 'the old limiter was drained, so the new one starts drained');
  clock.step(10_000);
  await q.try(ok);
  assert.deepEqual(q.queued(), []);
});

test('a failed value is retried after its wait', async () => {
  const clock = new FakeClock();
  const q = new RateLimitedTimedQueue(clock, 1000);
  q.add('a', '');
  let calls = 0;
  const fn = async (): Promise<{ done: boolean; retryMs: number }> => ({ done: ++calls > 1, retryMs: 50 });
  await q.try(fn);
  assert.equal(calls, 1);
  clock.step(50);
  await q.try(fn);
  assert.equal(calls, 1, 'not before 50 ms + 1');
  clock.step(1);
  await q.try(fn);
  assert.equal(calls, 2);
  assert.deepEqual(q.queued(), []);
});
