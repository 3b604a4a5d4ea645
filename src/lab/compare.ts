/**
 * Comparing runs: a table of key figures per run with deltas against the
 * first and a verdict (better, worse, within noise), and overlaid charts.
 * Used for an experiment's variants and by `kscale lab compare A B`.
 */
import type { Experiment } from './experiments.js';
import { esc, mergeX, renderPage, type Section } from './html_page.js';
import type { LabReport } from './report.js';

/** One run to compare. */
export interface ComparisonRun {
  label: string;
  dir: string;
  report: LabReport;
}

/** Which way a figure improves; 'neither' for load figures that only describe the run. */
export type Better = 'lower' | 'higher' | 'neither';

/**
 * A compared figure. A single run carries no variance of its own, so a change
 * is "within noise" while it is under `noise` (relative) or under `floor`
 * (absolute, in the figure's unit): run-to-run spread seen on the lab's machine.
 */
export interface KeyFigure {
  name: string;
  unit: string;
  value: number | null;
  better: Better;
  noise: number;
  floor: number;
}

/** How a figure moved against the first run. */
export type Verdict = 'better' | 'worse' | 'within noise' | 'changed' | 'n/a';

const mean = (v: number[]): number | null => (v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length);
const proc = (r: LabReport, name: string): LabReport['processes'][number] | undefined =>
  r.processes.find((p) => p.name === name);
const finite = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v;

/** The 429s the noisy neighbour received, LISTs and writes together; null when none ran. */
function noisy429(r: LabReport): number | null {
  const nn = r.flowControl?.noisyNeighbour;
  return nn === null || nn === undefined ? null : nn.lists.tooManyRequests + nn.writes.tooManyRequests;
}

/** The figures compared across runs. */
export function keyFigures(r: LabReport): KeyFigure[] {
  const slo = (prefix: string): number | null => r.slos.find((s) => s.name.startsWith(prefix))?.measured ?? null;
  const kill = r.phases.find((p) => p.type === 'kill-nodes');
  const f = (
    name: string,
    unit: string,
    value: number | null | undefined,
    better: Better,
    noise: number,
    floor: number,
  ) => ({
    name,
    unit,
    value: finite(value),
    better,
    noise,
    floor,
  });
  const latency = (name: string, v: number | null): KeyFigure => f(name, 's', v, 'lower', 0.1, 0.005);
  const cpu = (name: string, proc2: string): KeyFigure =>
    f(name, 'cores', proc(r, proc2)?.avgCores, 'lower', 0.1, 0.02);
  const server = proc(r, 'server');
  const qps = mean(r.api.series.qps);
  const serverCPU = server?.avgCores ?? null;
  const join = r.phases.find((p) => p.name === 'nodes');
  return [
    latency('mutating p99', slo('Mutating')),
    latency('single-object read p99', slo('Read-only API call latency p99 (single')),
    latency('namespace list p99', slo('Read-only API call latency p99 (namespace')),
    latency('cluster list p99', slo('Read-only API call latency p99 (cluster')),
    latency('pod startup p99', slo('Pod startup')),
    f(
      'pod startup control-plane share p99',
      'ms',
      r.podStartup.pods === 0 ? null : r.podStartup.controlPlane.p99,
      'lower',
      0.1,
      5,
    ),
    f('API requests/s (mean)', '/s', mean(r.api.series.qps), 'neither', 0.05, 1),
    f('429 answers/s (mean)', '/s', mean(r.api.series.tooManyPerSec), 'lower', 0.1, 0.1),
    f('storage ops/s (mean)', '/s', mean(r.api.series.storageOpsPerSec), 'neither', 0.05, 1),
    f(
      'server disk writes (mean)',
      'KiB/s',
      r.storage.serverWriteBytesPerSec.count === 0 ? null : (mean(server?.writeBytesPerSec ?? []) ?? NaN) / 1024,
      'lower',
      0.1,
      16,
    ),
    f('watch events dispatched/s (mean)', '/s', mean(r.api.series.watchEventsPerSec), 'neither', 0.05, 1),
    f('scheduling throughput (mean)', 'pods/s', r.scheduling.average || null, 'higher', 0.05, 0.5),
    cpu('server CPU (mean)', 'server'),
    f(
      'server CPU per request',
      'µs',
      serverCPU === null || qps === null || !(qps > 0) ? null : (serverCPU / qps) * 1e6,
      'lower',
      0.1,
      1,
    ),
    f('server peak RSS', 'MiB', server?.peakRssMiB, 'lower', 0.05, 10),
    cpu('fleet CPU (mean)', 'nodes'),
    // The fleet holds the nodes' connections: its memory is what they cost on the client side.
    f('fleet peak RSS', 'MiB', proc(r, 'nodes')?.peakRssMiB, 'lower', 0.05, 10),
    f('node join time (all Ready)', 's', join?.durationS, 'lower', 0.1, 1),
    cpu('controller-manager CPU (mean)', 'controller-manager'),
    cpu('scheduler CPU (mean)', 'scheduler'),
    f('dead-node detection time', 's', kill?.detectionS, 'lower', 0.1, 1),
    latency('node heartbeat (Lease write) p99', r.flowControl?.heartbeat.leaseWriteP99S ?? null),
    f('Lease requests answered 429', '', r.flowControl?.heartbeat.leaseTooManyRequests, 'lower', 0.1, 1),
    f('nodes turned NotReady', '', r.flowControl?.heartbeat.nodesTurnedNotReady, 'lower', 0, 0),
    f('noisy neighbour 429s', '', noisy429(r), 'neither', 0.1, 1),
    f('noisy neighbour CPU (mean)', 'cores', r.flowControl?.noisyNeighbour?.avgCores, 'neither', 0.1, 0.02),
    f('server event loop lag p99 (worst interval)', 'ms', r.serverRuntime?.eventLoopLagP99Ms.max, 'lower', 0.1, 1),
    f('total run time', 's', r.totalS, 'lower', 0.05, 1),
  ];
}

/** The verdict of `value` against `base` for a figure. */
export function verdict(
  fig: Pick<KeyFigure, 'better' | 'noise' | 'floor'>,
  base: number | null,
  value: number | null,
): Verdict {
  if (base === null || value === null) return 'n/a';
  const d = value - base;
  if (Math.abs(d) <= fig.floor || Math.abs(d) <= fig.noise * Math.abs(base)) return 'within noise';
  if (fig.better === 'neither') return 'changed';
  return d < 0 === (fig.better === 'lower') ? 'better' : 'worse';
}

/** One row of the comparison: a figure's value in every run, its delta and verdict against the first. */
export interface FigureRow {
  name: string;
  unit: string;
  better: Better;
  noisePercent: number;
  values: (number | null)[];
  deltaPercent: (number | null)[];
  verdicts: Verdict[];
}

/** The rows comparing every run against the first. */
export function figureRows(reports: LabReport[]): FigureRow[] {
  const figures = reports.map(keyFigures);
  return (figures[0] ?? []).map((fig, i) => {
    const values = figures.map((fs) => fs[i]!.value);
    const base = values[0] ?? null;
    return {
      name: fig.name,
      unit: fig.unit,
      better: fig.better,
      noisePercent: fig.noise * 100,
      values,
      deltaPercent: values.map((v) =>
        v === null || base === null || base === 0 ? null : ((v - base) / Math.abs(base)) * 100,
      ),
      verdicts: values.map((v, j) => (j === 0 ? 'n/a' : verdict(fig, base, v))),
    };
  });
}

const fmt = (v: number | null): string =>
  v === null || !Number.isFinite(v)
    ? '-'
    : Math.abs(v) >= 100
      ? v.toFixed(0)
      : Math.abs(v) >= 1
        ? v.toFixed(2)
        : v.toFixed(4);

const deltaText = (row: FigureRow, i: number): string => {
  const d = row.deltaPercent[i];
  return d === null || d === undefined ? '' : `${d >= 0 ? '+' : ''}${d.toFixed(0)}%`;
};

/** The delta table for a terminal: one line per figure, each later run with its delta and verdict. */
export function deltaTable(runs: ComparisonRun[], rows: FigureRow[]): string {
  const cells = rows.map((row) => [
    `${row.name} (${row.unit})`,
    ...row.values.map((v, i) =>
      i === 0 ? fmt(v) : `${fmt(v)} ${deltaText(row, i)} ${row.verdicts[i]}`.replace(/ +/g, ' '),
    ),
  ]);
  const head = ['figure', ...runs.map((r, i) => (i === 0 ? r.label : `${r.label} (Δ vs first)`))];
  const widths = head.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c]!.length)));
  const line = (cols: string[]): string =>
    cols
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), ...cells.map(line)].join('\n');
}

function comparisonSections(runs: ComparisonRun[], rows: FigureRow[]): Section[] {
  const head = `<tr><th>figure</th><th>unit</th>${runs.map((r, i) => `<th>${esc(r.label)}${i === 0 ? '' : ' (Δ vs first)'}</th>`).join('')}</tr>`;
  const body = rows
    .map(
      (row) =>
        `<tr><td>${esc(row.name)}</td><td>${esc(row.unit)}</td>${row.values
          .map((v, i) =>
            i === 0
              ? `<td>${fmt(v)}</td>`
              : `<td class="${row.verdicts[i]!.replace(' ', '-')}">${fmt(v)} ${deltaText(row, i)} <i>${row.verdicts[i]}</i></td>`,
          )
          .join('')}</tr>`,
    )
    .join('');
  const overlay = (
    title: string,
    yLabel: string,
    pick: (r: LabReport) => { x: number[]; y: (number | null)[] },
    xLabel = 's',
  ): Section => {
    const m = mergeX(runs.map((r) => ({ label: r.label, ...pick(r.report) })));
    return { chart: { title, xLabel, yLabel, x: m.x, series: m.series } };
  };
  const procSeries =
    (name: string, field: 'cpuCores' | 'rssMiB') =>
    (r: LabReport): { x: number[]; y: number[] } => {
      const p = proc(r, name);
      return { x: (p?.t ?? []).map((t) => Math.round(t)), y: p?.[field] ?? [] };
    };
  return [
    {
      html:
        `<h2>Key figures</h2><style>td.better{color:#070}td.worse{color:#b00}</style><table>${head}${body}</table>` +
        "<p>A single run has no variance of its own: a change is <i>within noise</i> under each figure's threshold (10% for latencies and CPU, 5% for rates and memory, or a small absolute floor).</p>",
    },
    {
      html: `<p>Results: ${runs.map((r) => `${esc(r.label)}: <b>${esc(r.report.result)}</b>${r.report.error === undefined ? '' : ` (${esc(r.report.error)})`}`).join('; ')}</p>`,
    },
    overlay('API requests per second', 'req/s', (r) => ({ x: r.api.series.t, y: r.api.series.qps })),
    overlay('Mutating p99 per scrape interval', 'seconds', (r) => ({
      x: r.api.series.t,
      y: r.api.series.p99.mutating,
    })),
    overlay('Storage operations per second', 'ops/s', (r) => ({ x: r.api.series.t, y: r.api.series.storageOpsPerSec })),
    overlay(
      'Pod startup latency CDF',
      'fraction of pods',
      (r) => ({ x: r.podStartup.cdfMs.x.map((v) => Math.round(v)), y: r.podStartup.cdfMs.y }),
      'ms',
    ),
    overlay('API server CPU', 'cores', procSeries('server', 'cpuCores')),
    overlay('API server memory (RSS)', 'MiB', procSeries('server', 'rssMiB')),
    overlay('Fleet CPU', 'cores', procSeries('nodes', 'cpuCores')),
  ];
}

/** comparison.json and comparison.html of an experiment. */
export function renderComparison(e: Experiment, runs: ComparisonRun[]): { json: object; html: string } {
  const rows = figureRows(runs.map((r) => r.report));
  const json = {
    kind: 'kscale-lab-experiment',
    experiment: e.name,
    lesson: e.lesson,
    watch: e.watch,
    variants: runs.map((r) => ({ label: r.label, dir: r.dir, result: r.report.result, slos: r.report.slos })),
    figures: rows,
  };
  const intro: Section = {
    html: `<p class="lesson"><b>Lesson.</b> ${esc(e.lesson)}</p><p>Look at: ${esc(e.watch)}. Scenario <b>${esc(e.scenario)}</b>; each variant is a full run (its own report is in its folder).</p>`,
  };
  return { json, html: renderPage(`kscale lab experiment: ${e.name}`, [intro, ...comparisonSections(runs, rows)]) };
}

/** `kscale lab compare`: the delta table, comparison JSON and overlaid-chart HTML of any runs' reports. */
export function compareReports(runs: ComparisonRun[]): { text: string; json: object; html: string } {
  const rows = figureRows(runs.map((r) => r.report));
  const json = {
    kind: 'kscale-lab-comparison',
    runs: runs.map((r) => ({ label: r.label, file: r.dir, result: r.report.result, commit: r.report.commit })),
    figures: rows,
  };
  const intro: Section = {
    html: `<p>${runs.map((r) => `<b>${esc(r.label)}</b>: ${esc(r.dir)} (scenario ${esc(r.report.config.scenario.name)}, ${r.report.config.nodes} nodes, commit ${esc(r.report.commit ?? 'unknown')}, ${esc(r.report.date)})`).join('<br>')}</p>`,
  };
  return {
    text: deltaTable(runs, rows),
    json,
    html: renderPage(`kscale lab compare: ${runs.map((r) => r.label).join(' vs ')}`, [
      intro,
      ...comparisonSections(runs, rows),
    ]),
  };
}
