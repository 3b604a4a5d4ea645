/**
 * The report: one row per figure, kscale beside the bare-HTTP reference, with
 * the target and PASS/FAIL, and the CPU of the load generator and the server
 * so a reader can see which side was the limit.
 */
import type { JobResult } from './load.js';

/** A phase's figures plus the CPU its server used (percent of one core). */
export interface Phase extends JobResult {
  serverCpuPercent?: number;
}

/** Every phase of a run; undefined when skipped (--only). */
export interface Results {
  connections: number;
  bareGet?: Phase;
  barePut?: Phase;
  get?: Phase;
  create?: Phase;
  update?: Phase;
  bareGetHalf?: Phase;
  barePutHalf?: Phase;
  getHalf?: Phase;
  createHalf?: Phase;
  updateHalf?: Phase;
}

/**
 * The targets, as ratios against the bare-HTTP reference measured in the same run (issue 29: absolute rates
 * cannot be judged on a noisy shared host), and the upstream SLO for reads.
 */
export const TARGETS = {
  getShareOfBare: 0.5,
  /** create and update, each against bare-HTTP PUT. */
  writeShareOfBarePut: 0.35,
  /** create and update at half their maximum rate; with --runs, judged on the median of the runs. */
  writeP99Ms: 50,
  /** sig-scalability: single-object read p99 ≤ 1 s. */
  getP99Ms: 1_000,
};

/** The first cell of every row, in order (the smoke test checks each is printed). */
export const ROW_LABELS = [
  'GET/s (closed loop)',
  'create/s (POST pod)',
  'update/s (PUT with RV)',
  'GET p50/p99 at 50%',
  'create p50/p99 at 50%',
  'update p50/p99 at 50%',
] as const;

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const ms = (x: number): string => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const pct = (x: number | undefined): string => (x === undefined ? 'n/a' : `${x.toFixed(0)}%`);

function clean(p: Phase): boolean {
  return p.errors === 0 && p.incomplete === 0;
}

function errCell(...ps: (Phase | undefined)[]): string {
  const bad = ps.filter((p): p is Phase => p !== undefined && !clean(p));
  if (bad.length === 0) return '0';
  return bad
    .map(
      (p) =>
        `${p.errors}${p.incomplete > 0 ? ` +${p.incomplete} unanswered` : ''} (${Object.entries(p.statuses)
          .filter(([k]) => !k.startsWith('2'))
          .map(([k, v]) => `${k}×${v}`)
          .join(' ')})`,
    )
    .join('; ');
}

function verdict(ok: boolean, p: Phase, note: string): string {
  if (!clean(p)) return `FAIL (errors) ${note}`;
  return `${ok ? 'PASS' : 'FAIL'} ${note}`;
}

const rate = (p: Phase | undefined): string => (p === undefined ? 'skipped' : `${n0(p.perSec)}/s`);
const lat = (p: Phase | undefined): string =>
  p?.latency === undefined ? 'skipped' : `${ms(p.latency.p50)} / ${ms(p.latency.p99)} ms @ ${n0(p.perSec)}/s`;
const cpus = (p: Phase | undefined): string =>
  p === undefined ? '' : `${pct(p.cpuPercent)} / ${pct(p.serverCpuPercent)}`;
/** Server CPU per answered request: steadier than rates when other work shares the machine. */
const cpuPerOp = (p: Phase | undefined): string =>
  p?.serverCpuPercent === undefined || p.perSec <= 0 ? '' : `${n0((p.serverCpuPercent / 100 / p.perSec) * 1e6)} µs`;

/** Builds the table rows: label, kscale, reference, target, result, CPU, errors. */
export function buildRows(r: Results): string[][] {
  const rows: string[][] = [
    ['figure', 'kscale', 'bare HTTP', 'target', 'result', 'gen / server CPU', 'server CPU/op kscale / bare', 'errors'],
  ];
  const t = TARGETS;

  const getRes =
    r.get === undefined || r.bareGet === undefined
      ? 'skipped'
      : verdict(
          r.get.perSec >= t.getShareOfBare * r.bareGet.perSec,
          r.get,
          `(${((r.get.perSec / r.bareGet.perSec) * 100).toFixed(0)}% of bare)`,
        );
  rows.push([
    ROW_LABELS[0],
    rate(r.get),
    rate(r.bareGet),
    `≥ ${t.getShareOfBare * 100}% of bare`,
    getRes,
    cpus(r.get),
    `${cpuPerOp(r.get)} / ${cpuPerOp(r.bareGet)}`,
    errCell(r.get),
  ]);

  const writeRow = (label: string, p: Phase | undefined): string[] => {
    const res =
      p === undefined || r.barePut === undefined
        ? 'skipped'
        : verdict(
            p.perSec >= t.writeShareOfBarePut * r.barePut.perSec,
            p,
            `(${((p.perSec / r.barePut.perSec) * 100).toFixed(0)}% of bare PUT)`,
          );
    return [
      label,
      rate(p),
      `${rate(r.barePut)} PUT`,
      `≥ ${t.writeShareOfBarePut * 100}% of bare PUT`,
      res,
      cpus(p),
      `${cpuPerOp(p)} / ${cpuPerOp(r.barePut)}`,
      errCell(p),
    ];
  };
  rows.push(writeRow(ROW_LABELS[1], r.create));
  rows.push(writeRow(ROW_LABELS[2], r.update));

  const latRow = (
    label: string,
    p: Phase | undefined,
    ref: Phase | undefined,
    limitMs: number,
    target: string,
  ): string[] => {
    const res =
      p?.latency === undefined ? 'skipped' : verdict(p.latency.p99 < limitMs, p, `(p99 ${ms(p.latency.p99)} ms)`);
    return [label, lat(p), lat(ref), target, res, cpus(p), `${cpuPerOp(p)} / ${cpuPerOp(ref)}`, errCell(p)];
  };
  rows.push(latRow(ROW_LABELS[3], r.getHalf, r.bareGetHalf, t.getP99Ms, `p99 ≤ ${n0(t.getP99Ms)} ms (SLO)`));
  rows.push(latRow(ROW_LABELS[4], r.createHalf, r.barePutHalf, t.writeP99Ms, `p99 < ${t.writeP99Ms} ms`));
  rows.push(latRow(ROW_LABELS[5], r.updateHalf, r.barePutHalf, t.writeP99Ms, `p99 < ${t.writeP99Ms} ms`));
  return rows;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** One phase over several whole runs: each rate, CPU and percentile its median; errors and status counts summed. */
export function medianPhase(ps: Phase[]): Phase {
  const sum = (f: (p: Phase) => number): number => ps.reduce((a, p) => a + f(p), 0);
  const statuses: Record<string, number> = {};
  for (const p of ps) for (const [k, v] of Object.entries(p.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const lats = ps.map((p) => p.latency).filter((l) => l !== undefined);
  const servers = ps.map((p) => p.serverCpuPercent).filter((c) => c !== undefined);
  const firstError = ps.find((p) => p.firstError !== undefined)?.firstError;
  return {
    ok: sum((p) => p.ok),
    errors: sum((p) => p.errors),
    statuses,
    ...(firstError !== undefined ? { firstError } : {}),
    incomplete: sum((p) => p.incomplete),
    elapsedMs: sum((p) => p.elapsedMs),
    perSec: median(ps.map((p) => p.perSec)),
    cpuPercent: median(ps.map((p) => p.cpuPercent)),
    ...(servers.length > 0 ? { serverCpuPercent: median(servers) } : {}),
    ...(lats.length > 0
      ? {
          latency: {
            p50: median(lats.map((l) => l.p50)),
            p90: median(lats.map((l) => l.p90)),
            p99: median(lats.map((l) => l.p99)),
            max: median(lats.map((l) => l.max)),
          },
        }
      : {}),
    rvs: [],
  };
}

/** Several whole runs as one: every phase that all runs measured, as its median (medianPhase). */
export function medianResults(runs: Results[]): Results {
  const out: Results = { connections: runs[0]?.connections ?? 0 };
  const keys = [
    'bareGet',
    'barePut',
    'get',
    'create',
    'update',
    'bareGetHalf',
    'barePutHalf',
    'getHalf',
    'createHalf',
    'updateHalf',
  ] as const;
  for (const k of keys) {
    const ps = runs.map((r) => r[k]);
    if (ps.length > 0 && ps.every((p) => p !== undefined)) out[k] = medianPhase(ps);
  }
  return out;
}

/** Aligns rows into a plain-text table. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c + ' '.repeat(widths[i]! - [...c].length))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** Warnings about the run itself (a saturated generator, errors). */
export function warnings(r: Results): string[] {
  const out: string[] = [];
  const all: [string, Phase | undefined][] = [
    ['bare GET', r.bareGet],
    ['bare PUT', r.barePut],
    ['GET', r.get],
    ['create', r.create],
    ['update', r.update],
  ];
  for (const [name, p] of all) {
    if (p !== undefined && p.cpuPercent > 90)
      out.push(`! load generator at ${pct(p.cpuPercent)} CPU during ${name}: it may be the limit of that figure.`);
    if (p?.firstError !== undefined) out.push(`! ${name}: first error: ${p.firstError}`);
  }
  for (const [name, p] of [
    ['GET', r.get],
    ['create', r.create],
    ['update', r.update],
  ] as const) {
    if (p?.serverCpuPercent !== undefined && p.serverCpuPercent < 70) {
      out.push(
        `! ${name}: the server used only ${pct(p.serverCpuPercent)} of a core at its maximum rate: it was waiting (storage fsync, or CPU taken by other processes), not computing.`,
      );
    }
  }
  for (const [name, p] of [
    ['GET', r.getHalf],
    ['create', r.createHalf],
    ['update', r.updateHalf],
  ] as const) {
    if (p?.firstError !== undefined) out.push(`! ${name} at 50%: first error: ${p.firstError}`);
  }
  return out;
}
