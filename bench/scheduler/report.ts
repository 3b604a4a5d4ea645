/** The scheduler benchmark's table. */

/** One measured case. */
export interface Row {
  kase: string;
  nodes: number;
  pods: number;
  bound: number;
  throughput: number;
  p50: number;
  p99: number;
  schedCpuPerPod: number;
  serverCpuPerPod: number;
  benchCpuPerPod: number;
  schedRssMB: number;
  serverRssMB: number;
  wallS: number;
  load: string;
}

/** The column headers, in order. */
export const COLUMNS = [
  'case',
  'nodes',
  'pods',
  'bound',
  'pods/s',
  'p50 ms',
  'p99 ms',
  'sched CPU ms/pod',
  'server CPU ms/pod',
  'creator CPU ms/pod',
  'sched RSS MB',
  'server RSS MB',
  'wall s',
  'load 1m',
];

/** A fixed-width table, one row per case. */
export function formatTable(rows: Row[]): string {
  const cells = rows.map((r) => [
    r.kase,
    String(r.nodes),
    String(r.pods),
    String(r.bound),
    r.throughput.toFixed(0),
    r.p50.toFixed(0),
    r.p99.toFixed(0),
    r.schedCpuPerPod.toFixed(3),
    r.serverCpuPerPod.toFixed(3),
    r.benchCpuPerPod.toFixed(3),
    r.schedRssMB.toFixed(0),
    r.serverRssMB.toFixed(0),
    r.wallS.toFixed(1),
    r.load,
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]): string =>
    row
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd() + '\n';
  return line(COLUMNS) + cells.map(line).join('');
}
