import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WatchLimiter } from './watch_limit.js';

test('each user may hold up to the cap of watches; a release (once) frees a place', () => {
  const l = new WatchLimiter(2);
  const a1 = l.acquire('alice');
  l.acquire('alice');
  assert.throws(
    () => l.acquire('alice'),
    (e: { code?: number; status?: { details?: { retryAfterSeconds?: number } } }) =>
      e.code === 429 && e.status?.details?.retryAfterSeconds === 1,
  );
  // Another user has places of their own.
  l.acquire('bob');
  a1();
  a1();
  assert.equal(l.count('alice'), 1);
  l.acquire('alice');
  assert.equal(l.count('alice'), 2);
  assert.equal(new WatchLimiter(0).count('x'), 0);
  const open = new WatchLimiter(0);
  for (let i = 0; i < 100; i++) open.acquire('x');
  assert.equal(open.count('x'), 100);
});
