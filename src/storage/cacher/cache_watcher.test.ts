/**
 * CacheWatcher read by push (consume): the same order, buffering, end and
 * TooSlow rules as reading it with `for await`, and a sink that returns false
 * is not called again until resume().
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { isStorageError } from '../errors.js';
import { consumeWatch } from '../watch_sink.js';
import { CacheWatcher } from './cache_watcher.js';

const LIMITS = { capacity: 3, budgetMs: 1_000, hardLimit: 30 };

/** A sink that records items and the end, accepting `room` items before it reports itself full. */
function recorder(room = Infinity): {
  got: number[];
  ended: unknown[];
  room: number;
  item(v: number): boolean;
  end(err?: unknown): void;
} {
  return {
    got: [],
    ended: [],
    room,
    item(v) {
      this.got.push(v);
      return --this.room > 0;
    },
    end(err) {
      this.ended.push(err ?? 'clean');
    },
  };
}

test('push delivers initial items first, then live ones, and ends once after stop', () => {
  const w = new CacheWatcher<number>(new FakeClock(0), LIMITS, () => undefined);
  const s = recorder();
  w.consume(s);
  w.addInitial([1, 2, 3], (x) => (x === 2 ? null : x * 10));
  w.push(4);
  w.push(5);
  assert.deepEqual(s.got, [10, 30, 4, 5]);
  w.stop();
  w.push(6);
  assert.deepEqual(s.got, [10, 30, 4, 5], 'nothing after the end');
  assert.deepEqual(s.ended, ['clean']);
});

test('a full sink is not called until resume; what came meanwhile follows in order, then the end', () => {
  const w = new CacheWatcher<number>(new FakeClock(0), LIMITS, () => undefined);
  const s = recorder(2);
  const r = consumeWatch(w, s);
  w.push(1);
  w.push(2); // the sink is full after this one
  w.push(3);
  w.push(4);
  assert.deepEqual(s.got, [1, 2]);
  w.stop();
  assert.deepEqual(s.ended, [], 'a paused sink gets its buffered items before the end');
  s.room = Infinity;
  r.resume();
  assert.deepEqual(s.got, [1, 2, 3, 4]);
  assert.deepEqual(s.ended, ['clean']);
});

test('a sink paused past the budget is ended with TooSlow and gets none of the buffer', () => {
  const clock = new FakeClock(0);
  let tooSlow = false;
  const w = new CacheWatcher<number>(clock, LIMITS, (slow) => (tooSlow = slow));
  const s = recorder(1);
  const r = consumeWatch(w, s);
  for (let i = 0; i < 5; i++) w.push(i);
  clock.step(1_000);
  assert.equal(tooSlow, true);
  s.room = Infinity;
  r.resume();
  assert.deepEqual(s.got, [0], 'the buffered events are dropped, not delivered before the failure');
  assert.equal(s.ended.length, 1);
  assert.ok(isStorageError(s.ended[0], 'TooSlow'), String(s.ended[0]));
});

test('a failure reaches the sink after the buffered items', () => {
  const w = new CacheWatcher<number>(new FakeClock(0), LIMITS, () => undefined);
  const s = recorder(1);
  const r = consumeWatch(w, s);
  w.push(1);
  w.push(2);
  w.fail(new Error('boom'));
  s.room = Infinity;
  r.resume();
  assert.deepEqual(s.got, [1, 2]);
  assert.equal((s.ended[0] as Error).message, 'boom');
});

test('consumeWatch pumps any other async iterable with the same pause and end', async () => {
  async function* gen(): AsyncGenerator<number> {
    yield 1;
    yield 2;
    yield 3;
    throw new Error('done badly');
  }
  const s = recorder(2);
  const r = consumeWatch(gen(), s);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.got, [1, 2], 'paused after the sink reported itself full');
  s.room = Infinity;
  r.resume();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.got, [1, 2, 3]);
  assert.equal((s.ended[0] as Error).message, 'done badly');
});
