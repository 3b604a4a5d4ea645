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

/** The targets, from the brief and the upstream SLO. */
export const TARGETS = {
  getShareOfBare: 0.5,
  writesPerSec: 3_000,
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
      p === undefined
        ? 'skipped'
        : verdict(p.perSec >= t.writesPerSec, p, `(${((p.perSec / t.writesPerSec) * 100).toFixed(0)}% of target)`);
    return [
      label,
      rate(p),
      `${rate(r.barePut)} PUT`,
      `≥ ${n0(t.writesPerSec)}/s`,
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
