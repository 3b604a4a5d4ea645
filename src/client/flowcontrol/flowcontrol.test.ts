import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { Backoff } from './backoff.js';
import { TokenBucket } from './token_bucket.js';

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

test('token bucket: burst passes at once, then one token per 1/qps', async () => {
  const clock = new FakeClock();
  const b = new TokenBucket(5, 10, clock);
  let passed = 0;
  for (let i = 0; i < 12; i++) void b.wait().then(() => passed++);
  await settle();
  assert.equal(passed, 10);
  clock.step(199);
  await settle();
  assert.equal(passed, 10);
  clock.step(1);
  await settle();
  assert.equal(passed, 11);
  clock.step(200);
  await settle();
  assert.equal(passed, 12);
});

test('token bucket refills up to burst only', () => {
  const clock = new FakeClock();
  const b = new TokenBucket(5, 2, clock);
  assert.ok(b.tryAccept());
  assert.ok(b.tryAccept());
  assert.ok(!b.tryAccept());
  clock.step(60_000);
  assert.equal(b.available(), 2);
});

test('qps <= 0 disables limiting', () => {
  const b = new TokenBucket(0, 1, new FakeClock());
  for (let i = 0; i < 1000; i++) assert.equal(b.reserve(), 0);
});

test('a wait aborts when its signal does', async () => {
  const clock = new FakeClock();
  const b = new TokenBucket(1, 1, clock);
  b.reserve();
  const ac = new AbortController();
  const p = b.wait(ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(p, /stop/);
});

test('backoff doubles to its cap with jitter and resets after calm', () => {
  const clock = new FakeClock();
  const b = new Backoff({ initialMs: 800, maxMs: 30_000, jitter: 1, resetAfterMs: 120_000, clock, random: () => 0.5 });
  const got = Array.from({ length: 8 }, () => b.next());
  assert.deepEqual(got, [1200, 2400, 4800, 9600, 19200, 38400, 45000, 45000]);
  clock.step(120_001);
  assert.equal(b.next(), 1200);
});

test('backoff jitter spreads clients that fail together', () => {
  const clock = new FakeClock();
  let seed = 1;
  const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const delays = Array.from({ length: 100 }, () => new Backoff({ clock, random }).next());
  const min = Math.min(...delays);
  const max = Math.max(...delays);
  assert.ok(min >= 800 && max < 1600);
  assert.ok(max - min > 500, `spread ${min}..${max}`);
});
