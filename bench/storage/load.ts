/**
 * Closed-loop load: N concurrent workers, each issuing its next operation as
 * soon as the previous one returns, bounded in both count and time. Every
 * operation's start and duration is kept, so a caller can ask for the worst
 * latency inside any time window (the compaction stall case).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** One load run's bounds and operation. */
export interface LoadOptions {
  concurrency: number;
  /** Stop after this many operations in total. */
  maxOps: number;
  /** Stop starting operations after this long. */
  maxMs: number;
  /** Stop starting operations once aborted (the bounds above still hold). */
  signal?: AbortSignal;
  /** The i-th operation (0-based, unique across workers). */
  op: (i: number) => Promise<unknown>;
}

/** What one run did. */
export interface LoadResult {
  ops: number;
  errors: number;
  firstError?: unknown;
  elapsedMs: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** performance.now() at each operation's start, and its duration. */
  starts: Float64Array;
  durations: Float64Array;
}

/** Runs the load; never rejects for a failed operation (they are counted). */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const starts = new Float64Array(o.maxOps);
  const durations = new Float64Array(o.maxOps);
  let next = 0;
  let errors = 0;
  let firstError: unknown;
  const t0 = performance.now();
  const deadline = t0 + o.maxMs;
  const worker = async (): Promise<void> => {
    while (next < o.maxOps && performance.now() < deadline && o.signal?.aborted !== true) {
      const i = next++;
      const s = performance.now();
      try {
        await o.op(i);
      } catch (err) {
        if (errors++ === 0) firstError = err;
      }
      starts[i] = s;
      durations[i] = performance.now() - s;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const elapsedMs = performance.now() - t0;
  const ops = next;
  const sorted = durations.slice(0, ops).sort();
  const pct = (p: number): number => (ops === 0 ? 0 : sorted[Math.min(ops - 1, Math.floor(p * ops))]);
  return {
    ops,
    errors,
    ...(errors > 0 ? { firstError } : {}),
    elapsedMs,
    opsPerSec: ops > 0 ? ((ops - errors) * 1000) / elapsedMs : 0,
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    maxMs: ops === 0 ? 0 : sorted[ops - 1],
    starts: starts.subarray(0, ops),
    durations: durations.subarray(0, ops),
  };
}

/** The longest operation that overlapped [from, to] (performance.now() times). */
export function maxLatencyIn(r: LoadResult, from: number, to: number): number {
  let max = 0;
  for (let i = 0; i < r.ops; i++) {
    const s = r.starts[i];
    if (s <= to && s + r.durations[i] >= from) max = Math.max(max, r.durations[i]);
  }
  return max;
}

/** Throws when a load had failures: a benchmark of failing writes measures nothing. */
export function assertNoErrors(what: string, r: LoadResult): void {
  if (r.errors > 0) {
    const msg = r.firstError instanceof Error ? r.firstError.message : String(r.firstError);
    throw new Error(`${what}: ${r.errors} of ${r.ops} operations failed, first: ${msg}`);
  }
}

/** The event loop's worst delay over a window, sampled every millisecond. */
export class LoopDelayWindow {
  private readonly h = monitorEventLoopDelay({ resolution: 1 });

  /** Starts (or restarts) the window. */
  start(): void {
    this.h.reset();
    this.h.enable();
  }

  /** Ends the window; returns the longest delay in ms (it includes the 1 ms sampling interval). */
  stop(): number {
    this.h.disable();
    return this.h.max > 0 && Number.isFinite(this.h.max) ? this.h.max / 1e6 : 0;
  }
}

/** Resolves after `ms` of wall time (benchmarks measure real time; tests use a FakeClock). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A 1 KB-ish value, unique per op so compare-and-swap always writes. */
export function valueFor(i: number, bytes: number): Buffer {
  const b = Buffer.alloc(bytes, 0x61);
  b.write(`${i}:`, 0, 'latin1');
  return b;
}
