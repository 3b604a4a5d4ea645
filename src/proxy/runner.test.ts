import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock/index.js';
import { BoundedFrequencyRunner } from './runner.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Moves the fake clock and lets the runs it started finish. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  clock.step(ms);
  await flush();
}

/** A started runner (1 s minimum, 30 s maximum) that counts its runs. */
async function counting(): Promise<{ clock: FakeClock; r: BoundedFrequencyRunner; runs: () => number }> {
  const clock = new FakeClock();
  let runs = 0;
  const r = new BoundedFrequencyRunner(async () => void runs++, { minIntervalMs: 1000, maxIntervalMs: 30_000, clock });
  r.start();
  await advance(clock, 0);
  return { clock, r, runs: () => runs };
}

test('runs at once, then no more often than the minimum interval, batching requests', async () => {
  const { clock, r, runs } = await counting();
  assert.equal(runs(), 1);
  r.run();
  r.run();
  r.run();
  await advance(clock, 999);
  assert.equal(runs(), 1, 'held back by --min-sync-period');
  await advance(clock, 1);
  assert.equal(runs(), 2, 'three requests, one run');
  await r.stop();
});

test('runs every maximum interval without requests', async () => {
  const { clock, r, runs } = await counting();
  await advance(clock, 29_999);
  assert.equal(runs(), 1);
  await advance(clock, 1);
  assert.equal(runs(), 2, '--sync-period elapsed');
  await r.stop();
});

test('a failed run is retried after the retry interval', async () => {
  const clock = new FakeClock();
  let runs = 0;
  const errors: unknown[] = [];
  const r = new BoundedFrequencyRunner(
    async () => {
      runs++;
      if (runs === 1) throw new Error('boom');
    },
    { minIntervalMs: 1000, maxIntervalMs: 30_000, retryIntervalMs: 5000, clock, onError: (e) => errors.push(e) },
  );
  r.start();
  clock.step(0);
  await flush();
  assert.equal(errors.length, 1);
  clock.step(5000);
  await flush();
  assert.equal(runs, 2);
  await r.stop();
});

test('a request during a run schedules exactly one more run after it', async () => {
  const clock = new FakeClock();
  let runs = 0;
  let release: () => void = () => undefined;
  const r = new BoundedFrequencyRunner(
    () => {
      runs++;
      return new Promise<void>((res) => (release = res));
    },
    { minIntervalMs: 0, maxIntervalMs: 30_000, clock },
  );
  r.start();
  clock.step(0);
  await flush();
  r.run();
  r.run();
  release();
  await flush();
  clock.step(0);
  await flush();
  assert.equal(runs, 2);
  release();
  await flush();
  await r.stop();
});
