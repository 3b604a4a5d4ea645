import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { OpenWatches, type OpenWatch } from './open_watches.js';

/** A watch that records when it was stopped and unfiles itself, as WatchResponse does when its stream ends. */
function watch(clock: FakeClock, open: OpenWatches, timeoutMs: number, stops: Map<string, number[]>, name: string) {
  const w: OpenWatch & { key: number } = {
    key: 0,
    stop() {
      stops.set(name, [...(stops.get(name) ?? []), clock.monotonic()]);
      open.delete(w, w.key);
    },
  };
  w.key = open.add(w, timeoutMs);
  return w;
}

test('each watch is stopped once, within a second after its timeout, under one timer', () => {
  const clock = new FakeClock(1_000_000_500);
  const open = new OpenWatches(clock);
  const stops = new Map<string, number[]>();
  const start = clock.monotonic();
  const timeouts: Record<string, number> = { a: 3_000, b: 3_000, c: 1_800_321, d: 250, e: 7_999 };
  for (const [name, ms] of Object.entries(timeouts)) watch(clock, open, ms, stops, name);
  assert.equal(open.size, 5);
  assert.equal(clock.pending(), 1, 'one timer for all of them');
  for (let i = 0; i < 1_900; i++) clock.step(1_000);
  for (const [name, ms] of Object.entries(timeouts)) {
    const at = stops.get(name);
    assert.equal(at?.length, 1, `${name} stopped once`);
    const late = at[0]! - (start + ms);
    assert.ok(late >= 0 && late <= 1_000, `${name} stopped ${late} ms after its timeout`);
  }
  assert.equal(open.size, 0);
});

test('a watch that ended first is not stopped; stopAll stops every open one', () => {
  const clock = new FakeClock();
  const open = new OpenWatches(clock);
  const stops = new Map<string, number[]>();
  const gone = watch(clock, open, 2_000, stops, 'gone');
  watch(clock, open, 2_000, stops, 'same-second');
  watch(clock, open, 60_000, stops, 'later');
  open.delete(gone, gone.key);
  open.delete(gone, gone.key); // a second delete changes nothing
  assert.equal(open.size, 2);
  clock.step(3_000);
  assert.deepEqual([...stops.keys()], ['same-second']);
  assert.equal(open.size, 1);
  open.stopAll();
  assert.deepEqual([...stops.keys()].sort(), ['later', 'same-second']);
  assert.equal(open.size, 0);
  open.close();
  assert.equal(clock.pending(), 0);
});
