/**
 * The cost of failpoints that are compiled in but off. Two measurements, in alternating rounds so drift hits
 * both sides alike:
 *  - the guard itself: the fan-out's `failpointsEnabled ? failpoint(name) : undefined` around a small piece of
 *    work, against the same work with no guard (ns/op);
 *  - the storage writer's hot path: creates through the SQLite store with every failpoint off, against the
 *    same with an unrelated point armed (so every writer point does its lookup and WAL position read).
 * Target: off is within noise of the baseline.
 *
 *   node dist/bench/failpoints/main.js [--rounds=5] [--ops=2000000] [--writes=2000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { failpoint, failpointsEnabled, FAILPOINTS_ENV } from '../../src/failpoint/index.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const ROUNDS = Number(args.get('rounds') ?? 5);
const OPS = Number(args.get('ops') ?? 2_000_000);
const WRITES = Number(args.get('writes') ?? 2_000);

let sink = 0;
function work(i: number): number {
  return (i * 2654435761) >>> 7;
}
function guarded(i: number): void {
  const fault = failpointsEnabled ? failpoint('cacher/dispatch/configmaps') : undefined;
  if (fault !== undefined) return;
  sink ^= work(i);
}
function baseline(i: number): void {
  sink ^= work(i);
}
function nsPerOp(fn: (i: number) => void): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) fn(i);
  return Number(process.hrtime.bigint() - t0) / OPS;
}

/** Creates WRITES keys with 16 concurrent clients in a fresh store; writes/s. */
async function writesPerSecond(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-fpbench-'));
  const store = await openSqliteStorage({ dataDir: dir, progressIntervalMs: 60_000 });
  const value = Buffer.alloc(512, 'v');
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < WRITES) await store.create(`/registry/bench/k${next++}`, value);
    }),
  );
  const rate = WRITES / ((performance.now() - t0) / 1000);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return rate;
}

/** Runs writesPerSecond in a child with `failpoints` in its environment (the writer thread reads it at start). */
function childRate(failpoints: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = fork(fileURLToPath(import.meta.url), ['--child', `--writes=${WRITES}`], {
      env: { ...process.env, [FAILPOINTS_ENV]: failpoints },
    });
    p.on('message', (m) => resolve(m as number));
    p.on('error', reject);
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (args.has('child')) {
  process.send!(await writesPerSecond());
  process.exit(0);
}

const off: number[] = [];
const base: number[] = [];
const wOff: number[] = [];
const wArmed: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  off.push(nsPerOp(guarded));
  base.push(nsPerOp(baseline));
  wOff.push(await childRate(''));
  wArmed.push(await childRate('bench/unrelated=panic'));
}
console.log(`guard off:        ${median(off).toFixed(2)} ns/op (baseline ${median(base).toFixed(2)} ns/op)`);
console.log(
  `sqlite creates:   off ${median(wOff).toFixed(0)}/s, an unrelated point armed ${median(wArmed).toFixed(0)}/s`,
);
console.log(`(${ROUNDS} alternating rounds; sink ${sink & 1})`);
