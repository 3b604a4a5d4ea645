/**
 * Listing every key under one prefix (100k keys of 1 KB in the full run), in
 * pages of 1,000 with continue tokens as the API server and reflectors do, and
 * (embedded store) in one unpaged list. The paged list is also timed while
 * writers keep writing other keys, because then every later page is a read at
 * an older revision than the latest one.
 */
import { performance } from 'node:perf_hooks';
import type { Backend } from './backends.js';
import type { BenchConfig } from './config.js';
import { runLoad, valueFor } from './load.js';

/** Seconds per list (median of the repeats). */
export interface ListFigures {
  pagedS: number;
  pagedBusyS: number;
  /** Embedded store only. */
  unpagedS?: number;
}

const PREFIX = '/registry/bench-list/';

/** Loads the keys (not timed), then times each kind of list. */
export async function measureList(b: Backend, cfg: BenchConfig): Promise<ListFigures> {
  const entries: [string, Buffer][] = [];
  for (let i = 0; i < cfg.listKeys; i++) entries.push([`${PREFIX}ns-${i % 100}/obj-${i}`, valueFor(i, cfg.valueBytes)]);
  await b.bulkPut(entries);

  const paged = await repeat(cfg, () => pagedList(b, cfg));
  const busy = await withWriters(b, cfg, () => pagedList(b, cfg));
  const f: ListFigures = { pagedS: paged, pagedBusyS: busy };
  if (b.sqlite !== undefined) {
    f.unpagedS = await repeat(cfg, async () => {
      const t0 = performance.now();
      const r = await b.store.list(PREFIX);
      expectCount(r.items.length, cfg);
      return (performance.now() - t0) / 1000;
    });
  }
  return f;
}

/** One full paged list; returns seconds. Bounded by page count and time. */
async function pagedList(b: Backend, cfg: BenchConfig): Promise<number> {
  const maxPages = Math.ceil(cfg.listKeys / cfg.listPage) + 2;
  const deadline = performance.now() + cfg.listMaxMs;
  const t0 = performance.now();
  let count = 0;
  let cont: string | undefined;
  for (let page = 0; page < maxPages && performance.now() < deadline; page++) {
    const r = await b.store.list(PREFIX, { limit: cfg.listPage, ...(cont === undefined ? {} : { continue: cont }) });
    count += r.items.length;
    cont = r.continue;
    if (cont === undefined) break;
  }
  expectCount(count, cfg);
  return (performance.now() - t0) / 1000;
}

function expectCount(count: number, cfg: BenchConfig): void {
  if (count !== cfg.listKeys) throw new Error(`list returned ${count} keys, expected ${cfg.listKeys}`);
}

async function repeat(cfg: BenchConfig, fn: () => Promise<number>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < cfg.listRepeats; i++) runs.push(await fn());
  return median(runs);
}

/** Runs `fn` while `stallWriters` writers create other keys; returns fn's result. */
async function withWriters(b: Backend, cfg: BenchConfig, fn: () => Promise<number>): Promise<number> {
  const stop = new AbortController();
  const load = runLoad({
    concurrency: cfg.stallWriters,
    maxOps: 1_000_000,
    maxMs: cfg.listMaxMs,
    signal: stop.signal,
    op: (i) => b.store.create(`/registry/bench-list-writers/ns/obj-${i}`, valueFor(i, cfg.valueBytes)),
  });
  try {
    return await fn();
  } finally {
    stop.abort();
    await load;
  }
}

/** The middle value (mean of the two middle ones for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
