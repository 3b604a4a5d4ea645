/** The kubelet benchmark's table: one column per heartbeat mode and update frequency. */

/** The figures of one configuration. */
export interface RunResult {
  label: string;
  nodes: number;
  allReadyS: number;
  fleetCores: number;
  fleetRssMiB: number;
  serverCores: number;
  serverRssMiB: number;
  requestRates: Map<string, number>;
  failedPerS: number;
  diskWriteKiBs: number;
  storageGrowthKiBs: number;
  podsRunning: number;
}

/** Fixed rows, in order (the smoke test checks each is printed). */
export const ROW_LABELS = [
  'all Ready (s)',
  'fleet CPU (cores)',
  'fleet RSS (MiB)',
  'API server CPU (cores)',
  'API server RSS (MiB)',
  'API requests/s, total',
  'API errors/s (>= 400)',
  'storage disk writes (KiB/s)',
  'storage size growth (KiB/s)',
] as const;

const fmt = (v: number, digits = 1): string => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

/** Renders the table: fixed rows, then requests/s by verb and resource. */
export function renderTable(results: RunResult[]): string {
  const labelWidth = 34;
  const colWidth = Math.max(12, ...results.map((r) => r.label.length + 2));
  const row = (label: string, cells: string[]): string =>
    label.padEnd(labelWidth) + cells.map((c) => c.padStart(colWidth)).join('');
  const lines = [
    row(
      '',
      results.map((r) => r.label),
    ),
  ];
  const total = (r: RunResult): number => [...r.requestRates.values()].reduce((a, b) => a + b, 0);
  const fixed: [string, (r: RunResult) => string][] = [
    ['all Ready (s)', (r) => fmt(r.allReadyS)],
    ['fleet CPU (cores)', (r) => fmt(r.fleetCores, 3)],
    ['fleet RSS (MiB)', (r) => fmt(r.fleetRssMiB, 0)],
    ['API server CPU (cores)', (r) => fmt(r.serverCores, 3)],
    ['API server RSS (MiB)', (r) => fmt(r.serverRssMiB, 0)],
    ['API requests/s, total', (r) => fmt(total(r))],
    ['API errors/s (>= 400)', (r) => fmt(r.failedPerS, 2)],
    ['storage disk writes (KiB/s)', (r) => fmt(r.diskWriteKiBs, 0)],
    ['storage size growth (KiB/s)', (r) => fmt(r.storageGrowthKiBs, 0)],
  ];
  for (const [label, cell] of fixed) lines.push(row(label, results.map(cell)));
  const keys = new Set<string>();
  for (const r of results) for (const k of r.requestRates.keys()) keys.add(k);
  for (const k of [...keys].sort())
    lines.push(
      row(
        `  ${k} /s`,
        results.map((r) => fmt(r.requestRates.get(k) ?? 0)),
      ),
    );
  if (results.some((r) => r.podsRunning > 0))
    lines.push(
      row(
        'pods Running',
        results.map((r) => String(r.podsRunning)),
      ),
    );
  return lines.join('\n');
}
