/** The proxy benchmark's table: one block per size, one column per mode. */
import type { ConnectFigures, ModeResult, SyncFigures } from './measure.js';

/** Row labels, in print order (the smoke test checks each appears). */
export const ROW_LABELS = [
  'rules (objects) after sync',
  'initial sync, ms',
  'full resync, ms',
  'one-service change, ms',
  'rule computation, initial / resync, ms',
  'rule computation, one change, ms',
  'bytes to the kernel, resync',
  'bytes to the kernel, one change',
  'proxy CPU (incl. tools), resync, ms',
  'proxy CPU (incl. tools), one change, ms',
  'connect to first service p50 / p99, ms',
  'connect to last service p50 / p99, ms',
] as const;

const f0 = (x: number | undefined): string =>
  x === undefined || Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1);
const f2 = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(3));
const kb = (x: number | undefined): string =>
  x === undefined ? '-' : x >= 1 << 20 ? `${(x / (1 << 20)).toFixed(1)} MiB` : `${(x / 1024).toFixed(1)} KiB`;
const conn = (c: ConnectFigures | undefined): string =>
  c === undefined ? '-' : `${f2(c.p50)} / ${f2(c.p99)}${c.failures > 0 ? ` (${c.failures} failed)` : ''}`;

function cells(r: ModeResult): string[] {
  const s = (x: SyncFigures | undefined, g: (f: SyncFigures) => string): string => (x === undefined ? '-' : g(x));
  return [
    s(r.resync, (x) => String(x.rules)),
    s(r.initial, (x) => f0(x.wallMs)),
    s(r.resync, (x) => f0(x.wallMs)),
    s(r.change, (x) => f0(x.wallMs)),
    r.initial && r.resync ? `${f0(r.initial.renderMs)} / ${f0(r.resync.renderMs)}` : '-',
    s(r.change, (x) => f0(x.renderMs)),
    s(r.resync, (x) => kb(x.bytes)),
    s(r.change, (x) => kb(x.bytes)),
    s(r.resync, (x) => f0(x.cpuMs)),
    s(r.change, (x) => f0(x.cpuMs)),
    conn(r.first),
    conn(r.last),
  ];
}

/** Renders the results of one size as an aligned text table. */
export function renderTable(n: number, results: ModeResult[]): string {
  const head = [`${n} services x 10 endpoints`, ...results.map((r) => r.mode)];
  const rows = ROW_LABELS.map((label, i) => [label, ...results.map((r) => cells(r)[i]!)]);
  const widths = head.map((_, c) => Math.max(...[head, ...rows].map((r) => r[c]!.length)));
  const line = (r: string[]): string =>
    r.map((x, c) => (c === 0 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!))).join('  ');
  const notes = results
    .filter((r) => r.kernel !== undefined)
    .map((r) => `  ${r.mode}: not applied to a kernel: ${r.kernel}`);
  return [line(head), ...rows.map(line), ...notes, ''].join('\n');
}
