import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RealClock } from './index.js';

const clock = new RealClock();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('a cancelled RealClock timeout never fires; an uncancelled one does', async () => {
  let cancelled = 0;
  let kept = 0;
  clock.setTimeout(() => cancelled++, 20).cancel();
  clock.setTimeout(() => kept++, 20);
  await sleep(80);
  assert.equal(cancelled, 0);
  assert.equal(kept, 1);
});

test('a cancelled RealClock interval stops repeating', async () => {
  let n = 0;
  const t = clock.setInterval(() => n++, 10);
  await sleep(75);
  t.cancel();
  const seen = n;
  assert.ok(seen >= 2, `the interval fired ${seen} times in 75 ms`);
  await sleep(60);
  assert.equal(n, seen);
});
