/**
 * Write throughput: creates with 1, 16 and 100 concurrent writers, and
 * compare-and-swap updates (guaranteedUpdate) at 16, all with 1 KB values.
 * For the embedded store the group-commit counters tell how many writes
 * shared each commit, and so each fsync.
 */
import type { Backend } from './backends.js';
import type { BenchConfig } from './config.js';
import { assertNoErrors, runLoad, valueFor } from './load.js';

/** One create case on one backend. */
export interface CreateFigures {
  writers: number;
  opsPerSec: number;
  p99Ms: number;
  /** Embedded store only: writes per group commit, and commits per second. */
  writesPerCommit?: number;
  commitsPerSec?: number;
}

/** Creates fresh keys with each writer count in turn. */
export async function measureCreates(b: Backend, cfg: BenchConfig): Promise<CreateFigures[]> {
  const out: CreateFigures[] = [];
  for (const writers of cfg.writerCounts) {
    const prefix = `/registry/bench-create-${writers}/ns/`;
    const before = b.sqlite === undefined ? undefined : { ...b.sqlite.writerStats };
    const r = await runLoad({
      concurrency: writers,
      maxOps: cfg.createMaxOps[writers] ?? 10_000,
      maxMs: cfg.caseMaxMs,
      op: (i) => b.store.create(`${prefix}obj-${i}`, valueFor(i, cfg.valueBytes)),
    });
    assertNoErrors(`${b.name} creates with ${writers} writers`, r);
    const f: CreateFigures = { writers, opsPerSec: r.opsPerSec, p99Ms: r.p99Ms };
    if (b.sqlite !== undefined && before !== undefined) {
      const after = b.sqlite.writerStats;
      const commits = after.commits - before.commits;
      f.writesPerCommit = commits > 0 ? (after.writes - before.writes) / commits : 0;
      f.commitsPerSec = (commits * 1000) / r.elapsedMs;
    }
    out.push(f);
  }
  return out;
}

/** guaranteedUpdate on distinct keys (no conflicts), so the figure is the CAS round trip itself. */
export async function measureCas(b: Backend, cfg: BenchConfig): Promise<{ opsPerSec: number; p99Ms: number }> {
  const prefix = '/registry/bench-cas/ns/';
  const keys = Array.from({ length: cfg.casKeys }, (_, i) => `${prefix}obj-${i}`);
  await b.bulkPut(keys.map((k, i) => [k, valueFor(i, cfg.valueBytes)]));
  const r = await runLoad({
    concurrency: cfg.casWriters,
    maxOps: cfg.casMaxOps,
    maxMs: cfg.caseMaxMs,
    // Ops on the same key are casKeys apart, far more than the writers in flight, so conflicts are rare (and retried).
    op: (i) =>
      b.store.guaranteedUpdate(keys[i % keys.length], () => ({ value: valueFor(i + cfg.casKeys, cfg.valueBytes) })),
  });
  assertNoErrors(`${b.name} CAS updates`, r);
  return { opsPerSec: r.opsPerSec, p99Ms: r.p99Ms };
}
