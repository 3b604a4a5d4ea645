/**
 * The side-by-side report of an experiment: the lesson, a table of key
 * figures per variant with deltas against the first, and overlaid charts.
 */
import type { Experiment } from './experiments.js';
import { esc, mergeX, renderPage, type Section } from './html_page.js';
import type { LabReport } from './report.js';

/** One variant's run. */
export interface ComparisonRun {
  label: string;
  dir: string;
  report: LabReport;
}

const mean = (v: number[]): number => (v.length === 0 ? NaN : v.reduce((a, b) => a + b, 0) / v.length);
const proc = (r: LabReport, name: string): LabReport['processes'][number] | undefined =>
  r.processes.find((p) => p.name === name);

/** The 429s the noisy neighbour received, LISTs and writes together; null when none ran. */
function noisy429(r: LabReport): number | null {
  const nn = r.flowControl?.noisyNeighbour;
  return nn === null || nn === undefined ? null : nn.lists.tooManyRequests + nn.writes.tooManyRequests;
}

/** The figures compared across variants: [name, unit, value]. */
export function keyFigures(r: LabReport): [string, string, number | null][] {
  const slo = (prefix: string): number | null => r.slos.find((s) => s.name.startsWith(prefix))?.measured ?? null;
  const kill = r.phases.find((p) => p.type === 'kill-nodes');
  const cpuOf = (name: string): number | null => proc(r, name)?.avgCores ?? null;
  const qps = mean(r.api.series.qps);
  const serverCPU = cpuOf('server');
  const join = r.phases.find((p) => p.name === 'nodes');
  return [
    ['mutating p99', 's', slo('Mutating')],
    ['single-object read p99', 's', slo('Read-only API call latency p99 (single')],
    ['namespace list p99', 's', slo('Read-only API call latency p99 (namespace')],
    ['cluster list p99', 's', slo('Read-only API call latency p99 (cluster')],
    ['pod startup p99', 's', slo('Pod startup')],
    ['pod startup control-plane share p99', 'ms', r.podStartup.pods === 0 ? null : r.podStartup.controlPlane.p99],
    ['API requests/s (mean)', '/s', mean(r.api.series.qps)],
    ['429 answers/s (mean)', '/s', mean(r.api.series.tooManyPerSec)],
    ['storage ops/s (mean)', '/s', mean(r.api.series.storageOpsPerSec)],
    [
      'server disk writes (mean)',
      'KiB/s',
      r.storage.serverWriteBytesPerSec.count === 0 ? null : mean(proc(r, 'server')?.writeBytesPerSec ?? []) / 1024,
    ],
    ['watch events dispatched/s (mean)', '/s', mean(r.api.series.watchEventsPerSec)],
    ['scheduling throughput (mean)', 'pods/s', r.scheduling.average || null],
    ['server CPU (mean)', 'cores', cpuOf('server')],
    ['server CPU per request', 'µs', serverCPU === null || !(qps > 0) ? null : (serverCPU / qps) * 1e6],
    ['server peak RSS', 'MiB', proc(r, 'server')?.peakRssMiB ?? null],
    ['fleet CPU (mean)', 'cores', cpuOf('nodes')],
    // The fleet holds the nodes' connections: its memory is what they cost on the client side.
    ['fleet peak RSS', 'MiB', proc(r, 'nodes')?.peakRssMiB ?? null],
    ['node join time (all Ready)', 's', join?.durationS ?? null],
    ['controller-manager CPU (mean)', 'cores', cpuOf('controller-manager')],
    ['scheduler CPU (mean)', 'cores', cpuOf('scheduler')],
    ['dead-node detection time', 's', kill?.detectionS ?? null],
    ['node heartbeat (Lease write) p99', 's', r.flowControl?.heartbeat.leaseWriteP99S ?? null],
    ['Lease requests answered 429', '', r.flowControl?.heartbeat.leaseTooManyRequests ?? null],
    ['nodes turned NotReady', '', r.flowControl?.heartbeat.nodesTurnedNotReady ?? null],
    ['noisy neighbour 429s', '', noisy429(r)],
    ['noisy neighbour CPU (mean)', 'cores', r.flowControl?.noisyNeighbour?.avgCores ?? null],
    ['server event loop lag p99 (worst interval)', 'ms', r.serverRuntime?.eventLoopLagP99Ms.max ?? null],
    ['total run time', 's', r.totalS],
  ];
}

const fmt = (v: number | null): string =>
  v === null || !Number.isFinite(v)
    ? '-'
    : Math.abs(v) >= 100
      ? v.toFixed(0)
      : Math.abs(v) >= 1
        ? v.toFixed(2)
        : v.toFixed(4);

/** comparison.json and comparison.html of an experiment. */
export function renderComparison(e: Experiment, runs: ComparisonRun[]): { json: object; html: string } {
  const figures = runs.map((r) => keyFigures(r.report));
  const rows = (figures[0] ?? []).map(([name, unit], i) => {
    const vals = figures.map((f) => f[i]![2]);
    const base = vals[0];
    return {
      name,
      unit,
      values: vals,
      deltaPercent: vals.map((v) =>
        v === null || base === null || base === undefined || !Number.isFinite(v) || !Number.isFinite(base) || base === 0
          ? null
          : ((v - base) / Math.abs(base)) * 100,
      ),
    };
  });
  const json = {
    kind: 'kscale-lab-experiment',
    experiment: e.name,
    lesson: e.lesson,
    watch: e.watch,
    variants: runs.map((r) => ({ label: r.label, dir: r.dir, result: r.report.result, slos: r.report.slos })),
    figures: rows,
  };
  const head = `<tr><th>figure</th><th>unit</th>${runs.map((r, i) => `<th>${esc(r.label)}${i === 0 ? '' : ' (Δ vs first)'}</th>`).join('')}</tr>`;
  const body = rows
    .map(
      (row) =>
        `<tr><td>${esc(row.name)}</td><td>${esc(row.unit)}</td>${row.values.map((v, i) => `<td>${fmt(v)}${i === 0 || row.deltaPercent[i] === null ? '' : ` (${row.deltaPercent[i]! >= 0 ? '+' : ''}${row.deltaPercent[i]!.toFixed(0)}%)`}</td>`).join('')}</tr>`,
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
  const sections: Section[] = [
    {
      html: `<p class="lesson"><b>Lesson.</b> ${esc(e.lesson)}</p><p>Look at: ${esc(e.watch)}. Scenario <b>${esc(e.scenario)}</b>; each variant is a full run (its own report is in its folder).</p>`,
    },
    { html: `<h2>Key figures</h2><table>${head}${body}</table>` },
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
  return { json, html: renderPage(`kscale lab experiment: ${e.name}`, sections) };
}
