import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JoinLimiter } from './node_join.js';

test('JoinLimiter runs at most its limit at once and all callers finish, in arrival order', async () => {
  const limiter = new JoinLimiter(3);
  let active = 0;
  let peak = 0;
  const started: number[] = [];
  const run = (i: number): Promise<number> =>
    limiter.run(async () => {
      started.push(i);
      peak = Math.max(peak, ++active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      if (i === 4) throw new Error('denied');
      return i;
    });
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => run(i)));
  assert.equal(peak, 3);
  assert.deepEqual(
    started,
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 19, 'a failure frees its slot');
  assert.equal(active, 0);
});
