import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock/index.js';
import { TimerQueue } from './timer_queue.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

test('one-shot tasks run in due order on a single clock timer', () => {
  const clock = new FakeClock();
  const q = new TimerQueue(clock);
  const ran: string[] = [];
  q.after(300, () => ran.push('c'));
  q.after(100, () => ran.push('a'));
  q.after(200, () => ran.push('b'));
  assert.equal(clock.pending(), 1);
  clock.step(150);
  assert.deepEqual(ran, ['a']);
  clock.step(200);
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(clock.pending(), 0);
});

test('a cancelled task does not run', () => {
  const clock = new FakeClock();
  const q = new TimerQueue(clock);
  let ran = false;
  q.after(10, () => (ran = true)).cancel();
  clock.step(20);
  assert.equal(ran, false);
});

test('periodic work is staggered, then slides: the next run waits for the previous one to finish', async () => {
  const clock = new FakeClock();
  const q = new TimerQueue(clock, () => 0.5);
  const starts: number[] = [];
  let release: (() => void) | undefined;
  const t0 = clock.now();
  q.every(10_000, () => {
    starts.push(clock.now() - t0);
    return new Promise<void>((r) => (release = r));
  });
  clock.step(5_000);
  assert.deepEqual(starts, [5_000], 'first run at a random fraction (0.5) of the period');
  clock.step(20_000);
  assert.deepEqual(starts, [5_000], 'no second run while the first is in flight');
  release!();
  await flush();
  clock.step(10_000);
  assert.deepEqual(starts, [5_000, 35_000]);
});

test('jitter stretches each wait by up to jitter × period, like wait.JitterUntil', async () => {
  const clock = new FakeClock();
  const q = new TimerQueue(clock, () => 1);
  const starts: number[] = [];
  const t0 = clock.now();
  q.every(10_000, () => void starts.push(clock.now() - t0), { initialDelayMs: 0, jitter: 0.04 });
  for (let i = 0; i < 4; i++) {
    clock.step(5_200);
    await flush();
  }
  assert.deepEqual(starts, [0, 10_400, 20_800]);
});

test('thousands of periodic loops share one clock timer', () => {
  const clock = new FakeClock();
  const q = new TimerQueue(clock);
  let runs = 0;
  for (let i = 0; i < 5_000; i++) q.every(10_000, () => void runs++);
  assert.equal(clock.pending(), 1);
  clock.step(10_000);
  assert.equal(runs, 5_000);
  assert.equal(clock.pending(), 1);
});

test('stop cancels everything and refuses new tasks', () => {
  const clock = new FakeClock();
  const q = new TimerQueue(clock);
  let runs = 0;
  q.every(1_000, () => void runs++, { initialDelayMs: 0 });
  q.stop();
  q.after(0, () => void runs++);
  clock.step(5_000);
  assert.equal(runs, 0);
  assert.equal(clock.pending(), 0);
});
