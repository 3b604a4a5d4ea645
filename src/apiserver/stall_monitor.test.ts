import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StallMonitor } from './stall_monitor.js';

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('a held event loop counts as stalled for the time it was held, and only within the asked interval', async () => {
  const m = new StallMonitor({ intervalMs: 10, minStallMs: 50 });
  try {
    await tick(30);
    const from = performance.now();
    while (performance.now() < from + 250);
    await tick(30);
    const to = performance.now();
    const s = m.during(from, to);
    assert.ok(s.stalledMs >= 200 && s.stalledMs <= to - from, `stalled ${s.stalledMs} of ${to - from} ms`);
    assert.equal(m.during(to, to + 1_000).stalledMs, 0, 'nothing after the stall');
    assert.ok(m.during(from, from + 100).stalledMs <= 100, 'only the part inside the interval');
  } finally {
    m.stop();
  }
});

test('garbage collection pauses are counted', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const m = new StallMonitor({ minGcMs: 0 });
  try {
    const from = performance.now();
    const junk = Array.from({ length: 200_000 }, (_, i) => ({ i, s: String(i) }));
    gc();
    await tick(50);
    assert.ok(junk.length > 0);
    assert.ok(m.during(from, performance.now()).gcMs > 0);
    assert.equal(m.during(from - 10_000, from - 5_000).gcMs, 0);
  } finally {
    m.stop();
  }
});
