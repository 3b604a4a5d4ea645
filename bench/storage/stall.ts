/**
 * The longest writer stall during maintenance. While 16 writers create keys
 * continuously, compact ~100k superseded revisions (then, on the embedded
 * store, truncate the WAL), and report the worst write latency and the worst
 * event-loop delay inside that window, next to a baseline window with no
 * maintenance. kine stalls writers for seconds here; the embedded store
 * compacts in small steps on its writer thread, so neither should move much.
 */
import { performance } from 'node:perf_hooks';
import type { Backend } from './backends.js';
import type { BenchConfig, Phase } from './config.js';
import { LoopDelayWindow, maxLatencyIn, runLoad, sleep, valueFor } from './load.js';

/** Worst write latency and event-loop delay of one phase. */
export interface PhaseFigures {
  maxWriteMs: number;
  maxLoopDelayMs: number;
  /** How long the maintenance itself took (0 for the baseline). */
  durationS: number;
  writesPerSec: number;
}

/** The stall case; `checkpoint` only for the embedded store. */
export interface StallFigures {
  phases: Partial<Record<Phase, PhaseFigures>>;
  /** Embedded store: the longest single compaction step on the writer thread. */
  maxCompactionStepMs?: number;
}

/** Writes superseded revisions, then measures the baseline, the compaction and the checkpoint. */
export async function measureStall(b: Backend, cfg: BenchConfig): Promise<StallFigures> {
  // Forget earlier cases' history first (untimed), so the measured compaction is exactly the revisions below.
  await b.store.compact(await b.store.currentRevision());
  if (b.sqlite !== undefined) await b.sqlite.checkpoint();
  const rounds = Math.ceil(cfg.compactRevisions / cfg.compactKeys) + 1;
  for (let r = 0; r < rounds; r++) {
    const entries: [string, Buffer][] = [];
    for (let k = 0; k < cfg.compactKeys; k++)
      entries.push([`/registry/bench-compact/ns/obj-${k}`, valueFor(r, cfg.valueBytes)]);
    await b.bulkPut(entries);
  }
  const target = await b.store.currentRevision();

  const out: StallFigures = { phases: {} };
  out.phases.baseline = await phase(b, cfg, 'baseline', () => sleep(cfg.stallBaselineMs));
  out.phases.compaction = await phase(b, cfg, 'compaction', () => b.store.compact(target));
  if (b.sqlite !== undefined) {
    const s = b.sqlite;
    out.phases.checkpoint = await phase(b, cfg, 'checkpoint', () => s.checkpoint());
    out.maxCompactionStepMs = s.maxCompactionStepMs;
  }
  return out;
}

/** Runs `work` while writers write; measures inside the window it takes. */
async function phase(b: Backend, cfg: BenchConfig, name: Phase, work: () => Promise<void>): Promise<PhaseFigures> {
  const stop = new AbortController();
  const loop = new LoopDelayWindow();
  const load = runLoad({
    concurrency: cfg.stallWriters,
    maxOps: 2_000_000,
    maxMs: cfg.stallMaxMs + cfg.stallBaselineMs + 2_000,
    signal: stop.signal,
    op: (i) => b.store.create(`/registry/bench-stall-${name}/ns/obj-${i}`, valueFor(i, cfg.valueBytes)),
  });
  let from = 0;
  let to = 0;
  let loopMax = 0;
  try {
    await sleep(Math.min(500, cfg.stallBaselineMs)); // writers reach a steady state first
    loop.start();
    from = performance.now();
    await withTimeout(work(), cfg.stallMaxMs, name);
    to = performance.now();
    loopMax = loop.stop();
  } finally {
    loop.stop();
    stop.abort();
  }
  const r = await load;
  const inWindow = Array.from(r.starts).filter((s) => s >= from && s <= to).length;
  return {
    maxWriteMs: maxLatencyIn(r, from, to),
    maxLoopDelayMs: loopMax,
    durationS: name === 'baseline' ? 0 : (to - from) / 1000,
    writesPerSec: (inWindow * 1000) / Math.max(1, to - from),
  };
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
