/**
 * Watch delivery: a burst of N creates written as fast as possible (100
 * writers) while 1 or 100 watchers follow the prefix live, timed until every
 * watcher has every event; then pure delivery, N events replayed from history
 * to each watcher. The figure is events delivered per second: N × watchers /
 * elapsed. Each case is bounded in time; a case cut short reports what was
 * delivered by then.
 */
import { performance } from 'node:perf_hooks';
import type { Watcher } from '../../src/storage/index.js';
import type { Backend } from './backends.js';
import type { BenchConfig } from './config.js';
import { assertNoErrors, runLoad, sleep, valueFor } from './load.js';

/** One watch case. */
export interface WatchFigure {
  eventsPerSec: number;
  /** Whether every watcher got every event within the bound. */
  complete: boolean;
}

/** Live and replay figures per watcher count. */
export interface WatchFigures {
  live: Record<number, WatchFigure>;
  replay: Record<number, WatchFigure>;
}

interface Consumer {
  count: number;
  doneAt: number;
  done: Promise<void>;
}

/** Counts non-progress events until `want` have arrived or the watch ends. */
function consume(w: Watcher, want: number): Consumer {
  const c: Consumer = { count: 0, doneAt: 0, done: Promise.resolve() };
  c.done = (async () => {
    try {
      for await (const ev of w) {
        if (ev.type === 'progress') continue;
        if (++c.count >= want) break;
      }
    } catch (err) {
      console.error(`watch ended early: ${(err as Error).message}`);
    } finally {
      c.doneAt = performance.now();
      w.stop();
    }
  })();
  return c;
}

/** Waits for every consumer, stopping all watchers at the deadline; returns when the last one finished. */
async function settle(watchers: Watcher[], consumers: Consumer[], maxMs: number): Promise<number> {
  const timer = setTimeout(() => watchers.forEach((w) => w.stop()), maxMs);
  try {
    await Promise.all(consumers.map((c) => c.done));
  } finally {
    clearTimeout(timer);
  }
  return Math.max(...consumers.map((c) => c.doneAt));
}

function figure(consumers: Consumer[], want: number, extra: number, elapsedMs: number): WatchFigure {
  const delivered = consumers.reduce((sum, c) => sum + Math.max(0, c.count - extra), 0);
  return {
    eventsPerSec: (delivered * 1000) / Math.max(elapsedMs, 0.001),
    complete: consumers.every((c) => c.count >= want),
  };
}

/** Runs the live and the replay case for each watcher count. */
export async function measureWatch(b: Backend, cfg: BenchConfig): Promise<WatchFigures> {
  const out: WatchFigures = { live: {}, replay: {} };
  for (const n of cfg.watcherCounts) {
    const prefix = `/registry/bench-watch-${n}/ns/`;
    const rev0 = await b.store.currentRevision();

    // Live: open every watcher, prove each stream is established with one warm-up event, then burst.
    const live = Array.from({ length: n }, () => b.store.watch(prefix, { fromRevision: rev0, progressNotify: false }));
    const want = cfg.watchEvents + 1;
    const liveConsumers = live.map((w) => consume(w, want));
    await b.store.create(`${prefix}warm-up`, valueFor(0, cfg.valueBytes));
    const warmDeadline = performance.now() + 10_000;
    while (liveConsumers.some((c) => c.count < 1) && performance.now() < warmDeadline) await sleep(5);
    const t0 = performance.now();
    const burst = await runLoad({
      concurrency: 100,
      maxOps: cfg.watchEvents,
      maxMs: cfg.watchMaxMs,
      op: (i) => b.store.create(`${prefix}obj-${i}`, valueFor(i, cfg.valueBytes)),
    });
    assertNoErrors(`${b.name} watch burst`, burst);
    const remaining = Math.max(0, cfg.watchMaxMs - (performance.now() - t0));
    const end = await settle(live, liveConsumers, remaining);
    out.live[n] = figure(liveConsumers, want, 1, end - t0);

    // Replay: the same events again, from history, to fresh watchers.
    const t1 = performance.now();
    const replay = Array.from({ length: n }, () =>
      b.store.watch(prefix, { fromRevision: rev0, progressNotify: false }),
    );
    const replayConsumers = replay.map((w) => consume(w, want));
    const end1 = await settle(replay, replayConsumers, cfg.watchMaxMs);
    out.replay[n] = figure(replayConsumers, want, 1, end1 - t1);
  }
  return out;
}
