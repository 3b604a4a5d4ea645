import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { DelayingQueue } from './delaying_queue.js';
import { RateLimitingQueue } from './rate_limiting_queue.js';
import { runWorkers } from './run_workers.js';
import { WorkQueue } from './queue.js';

/** Lets pending promise callbacks run; no time passes. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

test('a key added many times before processing is processed once', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(q.len(), 0);
});

test('a key added while processing is parked until done, then queued once', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  const a = await q.get();
  q.add('a');
  q.add('a');
  assert.equal(q.len(), 0, 'not handed to a second worker');
  q.done(a!);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'a');
});

test('get waits for an add and returns undefined after shutdown once empty', async () => {
  const q = new WorkQueue<string>();
  const p = q.get();
  q.add('x');
  assert.equal(await p, 'x');
  const waiting = q.get();
  q.shutDown();
  assert.equal(await waiting, undefined);
  q.add('y');
  assert.equal(q.len(), 0, 'adds after shutdown are ignored');
});

test('shutDownWithDrain waits for in-flight items', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  const a = await q.get();
  let drained = false;
  const p = q.shutDownWithDrain().then(() => (drained = true));
  await settle();
  assert.equal(drained, false);
  q.done(a!);
  await p;
  assert.equal(drained, true);
});

test('workers never process one key concurrently', async () => {
  const q = new RateLimitingQueue<string>({ clock: new FakeClock() });
  const active = new Set<string>();
  let overlaps = 0;
  let processed = 0;
  const w = runWorkers(q, 8, async (key) => {
    if (active.has(key)) overlaps++;
    active.add(key);
    await settle();
    // Re-adding during processing must not start a parallel sync of the same key.
    if (processed < 200) q.add(key);
    processed++;
    active.delete(key);
  });
  for (let i = 0; i < 50; i++) q.add(`k${i % 5}`);
  while (processed < 200) await settle();
  await q.shutDownWithDrain();
  await w.done;
  assert.equal(overlaps, 0);
});

test('addAfter adds on the clock and keeps the earlier deadline', () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 5000);
  assert.equal(q.len(), 0);
  clock.step(999);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  q.addAfter('b', 0);
  assert.equal(q.len(), 2, 'a zero delay adds at once');
});

test('addRateLimited backs off per item and forget resets it', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({ clock });
  for (const expected of [5, 10, 20, 40]) {
    q.addRateLimited('a');
    clock.step(expected - 1);
    assert.equal(q.len(), 0, `not before ${expected} ms`);
    clock.step(1);
    assert.equal(q.len(), 1, `after ${expected} ms`);
    q.done((await q.get())!);
  }
  assert.equal(q.numRequeues('a'), 4);
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
});

test('runWorkers requeues a failing key with backoff and forgets it on success', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({ clock });
  let calls = 0;
  const w = runWorkers(q, 2, async () => {
    calls++;
    if (calls < 3) throw new Error('not yet');
  });
  q.add('a');
  await settle();
  assert.equal(calls, 1);
  assert.equal(q.numRequeues('a'), 1);
  clock.step(5);
  await settle();
  assert.equal(calls, 2);
  clock.step(9);
  await settle();
  assert.equal(calls, 2, 'second retry waits 10 ms');
  clock.step(1);
  await settle();
  assert.equal(calls, 3);
  assert.equal(q.numRequeues('a'), 0, 'forgotten after success');
  await w.stop();
});

test('runWorkers drops a key after maxRetries', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({ clock });
  let calls = 0;
  const w = runWorkers(
    q,
    1,
    async () => {
      calls++;
      throw new Error('always');
    },
    { maxRetries: 2 },
  );
  q.add('a');
  for (let i = 0; i < 10; i++) {
    await settle();
    clock.step(1000);
  }
  assert.equal(calls, 3);
  assert.equal(q.waitingLen() + q.len(), 0);
  await w.stop();
});

test('runWorkers counts keys in flight and is idle only when none is syncing or ready', async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({ clock });
  const release = new Map<string, () => void>();
  const w = runWorkers(q, 1, (key) => new Promise<void>((r) => release.set(key, r)));
  assert.equal(w.idle(), true);
  q.add('a');
  q.add('b');
  assert.equal(w.idle(), false, 'ready keys are not idle');
  await settle();
  assert.equal(w.inFlight, 1);
  assert.equal(q.len(), 1);
  release.get('a')!();
  await settle();
  assert.equal(w.inFlight, 1, 'the one worker took b');
  assert.equal(w.idle(), false);
  release.get('b')!();
  await settle();
  assert.equal(w.inFlight, 0);
  assert.equal(w.idle(), true);
  q.addAfter('c', 1000);
  assert.equal(w.idle(), true, 'a delayed key does not count until it is ready');
  await w.stop();
});
