/**
 * The report: one row per figure, the watch cache beside storage-served
 * reads (--watch-cache=false) from the same run, the target, and PASS/FAIL
 * for the cache column. Notes below the table say what bounded each side.
 */
import type { Latency } from '../apiserver/load.js';
import type { LiveMemory } from './inspector.js';
import type { Config, ModeResult } from './run_mode.js';

/** The targets of issue 4. */
export const TARGETS = {
  /** "About 0/s apart from revision probes": get and list calls into storage per second. */
  storageReadsPerSec: 1,
  deliveryP99Ms: 100,
  listMs: 1_000,
  memoryPerJsonByte: 4,
};

/** The first cell of every row, in order (the smoke test checks each is printed). */
export const ROW_LABELS = [
  'pods created',
  'watchers open / closed by server',
  'status writes/s (p50 / p99)',
  'events delivered/s',
  'delivery p50 / p99 (write → receipt)',
  'delivery p50 / p99 (ack → receipt)',
  'server CPU during churn',
  'server RSS after pods / peak',
  'LIST all pods, RV=0 p50 / p99',
  'LIST all pods, consistent p50 / p99',
  'storage reads/s during churn',
  'memory per pod vs its JSON',
] as const;

const n0 = (x: number): string => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ms = (x: number): string =>
  !Number.isFinite(x) ? 'n/a' : Math.abs(x) < 10 ? x.toFixed(2) : Math.abs(x) < 100 ? x.toFixed(1) : n0(x);
const mb = (b: number): string => `${n0(b / 2 ** 20)} MiB`;
const kb = (b: number): string => `${(b / 1024).toFixed(1)} KiB`;
const lat = (l: Latency): string => `${ms(l.p50)} / ${ms(l.p99)} ms`;
const verdict = (ok: boolean, note: string): string => `${ok ? 'PASS' : 'FAIL'} ${note}`;

/** p50 and p99 of a few samples (p99 of five is their maximum). */
export function quantiles(xs: number[]): { p50: number; p99: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => (s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!);
  return { p50: at(0.5), p99: at(0.99) };
}

/** Storage get + list calls per second over the churn window. */
export function storageReadsPerSec(r: ModeResult): number {
  return (((r.storageCalls.get ?? 0) + (r.storageCalls.list ?? 0)) / r.storageWindowMs) * 1000;
}

/** Live memory (heap used + external, after a full GC) the server gained per pod, once the pods were created and listed. */
export function memoryPerPod(r: ModeResult): number {
  const kept = (m: LiveMemory): number => m.heapUsed + m.external;
  return (kept(r.live.afterLists) - kept(r.live.base)) / r.podCount;
}

/** Server RSS growth per pod over the same span (after a full GC). */
export function rssPerPod(r: ModeResult): number {
  return (r.live.afterLists.rss - r.live.base.rss) / r.podCount;
}

/** Builds the rows: figure, cache on, cache off, target, result (for the cache column). */
export function buildRows(cfg: Config, on: ModeResult | undefined, off: ModeResult | undefined): string[][] {
  const rows: string[][] = [['figure', '--watch-cache=true', '--watch-cache=false', 'target', 'result (cache)']];
  const cell = (r: ModeResult | undefined, f: (r: ModeResult) => string): string =>
    r === undefined ? 'skipped' : f(r);
  const row = (i: number, f: (r: ModeResult) => string, target: string, result: (r: ModeResult) => string): void => {
    rows.push([ROW_LABELS[i]!, cell(on, f), cell(off, f), target, on === undefined ? 'skipped' : result(on)]);
  };
  const info = (): string => 'info';

  row(
    0,
    (r) => `${n0(r.create.ok)} at ${n0(r.create.perSec)}/s, server ${r.createServerCpuPercent.toFixed(0)}% CPU`,
    `${n0(cfg.pods)}`,
    (r) => (r.create.ok === cfg.pods ? 'info' : `FAIL (${r.create.errors} errors)`),
  );
  row(
    1,
    (r) => `${n0(r.watchers.opened)} / ${n0(r.watchers.closedByServer)}`,
    `${n0(cfg.nodes + cfg.unfiltered)} / 0`,
    (r) =>
      r.watchers.opened === cfg.nodes + cfg.unfiltered && r.watchers.closedByServer === 0
        ? 'info'
        : 'FAIL (watchers lost)',
  );
  row(
    2,
    (r) => `${n0(r.churn.perSec)}/s (${lat(r.writeLatency)})`,
    `${n0(cfg.rate)}/s offered`,
    (r) =>
      r.churn.perSec >= 0.95 * cfg.rate
        ? 'info'
        : `FAIL (server kept up with ${((r.churn.perSec / cfg.rate) * 100).toFixed(0)}%)`,
  );
  row(
    3,
    (r) =>
      `${n0(r.deliveredPerSec)}/s (${((r.delivered / Math.max(1, r.expected)) * 100).toFixed(1)}% of ${n0(r.expected)})`,
    `${n0(cfg.rate * (1 + cfg.unfiltered))}/s`,
    (r) =>
      r.delivered >= r.expected ? 'info (all delivered)' : `FAIL (${n0(r.expected - r.delivered)} not delivered)`,
  );
  row(
    4,
    (r) => lat(r.e2e),
    `p99 < ${TARGETS.deliveryP99Ms} ms at ${n0(cfg.rate)}/s`,
    (r) => verdict(r.e2e.p99 < TARGETS.deliveryP99Ms && r.delivered >= r.expected, `(p99 ${ms(r.e2e.p99)} ms)`),
  );
  row(5, (r) => lat(r.afterAck), '', info);
  row(6, (r) => `${r.churnServerCpuPercent.toFixed(0)}% of a core`, '', info);
  row(7, (r) => `${mb(r.rss.afterCreate)} / ${mb(r.rss.peak)}`, '', info);
  const listRow = (i: number, pick: (r: ModeResult) => number[]): void => {
    row(
      i,
      (r) => {
        const q = quantiles(pick(r));
        return `${ms(q.p50)} / ${ms(q.p99)} ms (${pick(r).length}×, ${n0(r.lists.bytes / 1e6)} MB)`;
      },
      `< ${n0(TARGETS.listMs)} ms to last byte`,
      (r) => {
        const q = quantiles(pick(r));
        return verdict(
          q.p99 < TARGETS.listMs && r.lists.errors.length === 0,
          `(p99 ${ms(q.p99)} ms${r.lists.errors.length > 0 ? `, ${r.lists.errors.length} errors` : ''})`,
        );
      },
    );
  };
  listRow(8, (r) => r.lists.rv0);
  listRow(9, (r) => r.lists.consistent);
  row(
    10,
    (r) =>
      `${storageReadsPerSec(r).toFixed(1)}/s + ${(((r.storageCalls.currentRevision ?? 0) / r.storageWindowMs) * 1000).toFixed(1)}/s revision probes`,
    `≈ 0/s (< ${TARGETS.storageReadsPerSec}/s) besides probes`,
    (r) => verdict(storageReadsPerSec(r) < TARGETS.storageReadsPerSec, `(${storageReadsPerSec(r).toFixed(2)}/s)`),
  );
  row(
    11,
    (r) =>
      `${kb(memoryPerPod(r))} for ${kb(r.avgPodJson)} JSON = ${(memoryPerPod(r) / r.avgPodJson).toFixed(1)}× (RSS ${kb(rssPerPod(r))})`,
    `≤ ${TARGETS.memoryPerJsonByte}× JSON`,
    (r) =>
      verdict(
        memoryPerPod(r) <= TARGETS.memoryPerJsonByte * r.avgPodJson,
        `(${(memoryPerPod(r) / r.avgPodJson).toFixed(1)}×)`,
      ),
  );
  return rows;
}

/** Lines under the table: what each side did, so a reader can see the limits. */
export function notes(cfg: Config, results: ModeResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const side = `watch-cache=${r.watchCache}`;
    const calls = Object.entries(r.storageCalls)
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k} ${n0(v)}`)
      .join(', ');
    out.push(
      `${side}: load average ${r.loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${r.loadAfter.map((x) => x.toFixed(2)).join(' ')} after; server pid ${r.serverPid}`,
    );
    out.push(
      `  storage calls over churn + drain (${(r.storageWindowMs / 1000).toFixed(1)} s): ${calls || 'none'}; reads the cache passed to storage: ${n0(r.cacheStorageReads)}`,
    );
    out.push(
      `  churn: ${n0(r.churn.ok)} writes, ${r.churn.errors} errors, ${r.churn.unanswered} unanswered (${r.churn.unsent} never sent: all connections waiting)${r.churn.firstError === undefined ? '' : ` (first: ${r.churn.firstError})`}; drain ${(r.drainMs / 1000).toFixed(1)} s; CPU % of a core: server ${r.churnServerCpuPercent.toFixed(0)}, watch clients ${r.churnClientCpuPercent.toFixed(0)}, writer ${r.churnWriterCpuPercent.toFixed(0)}`,
    );
    out.push(
      `  frames received: ${
        Object.entries(r.watchers.frames)
          .map(([k, v]) => `${k} ${n0(v)}`)
          .join(', ') || 'none'
      }; ${n0(r.framesPerSec)} frames/s over the writes; ${n0(r.watchers.bytes / 1e6)} MB${r.watchers.firstError === undefined ? '' : `; first watch error: ${r.watchers.firstError}`}`,
    );
    out.push(
      `  server RSS: ${mb(r.rss.base)} idle, ${mb(r.rss.afterCreate)} with ${n0(r.podCount)} pods, ${mb(r.rss.afterChurn)} after churn; server CPU per delivered event ${n0((r.churnServerCpuPercent / 100 / Math.max(1, r.deliveredPerSec)) * 1e6)} µs`,
    );
    const live = (m: LiveMemory): string => `heap ${mb(m.heapUsed)} + external ${mb(m.external)} (RSS ${mb(m.rss)})`;
    out.push(
      `  after a full GC: ${live(r.live.base)} idle; ${live(r.live.afterCreate)} with the pods; ${live(r.live.afterLists)} after the LISTs`,
    );
    if (Object.keys(r.cache).length > 0)
      out.push(
        `  pods watch cache: ${Object.entries(r.cache)
          .map(([k, v]) => `${k.replace(/^apiserver_|^kscale_/, '')} ${n0(v)}`)
          .join(', ')}`,
      );
    if (r.lists.errors.length > 0) out.push(`  LIST errors: ${r.lists.errors.slice(0, 3).join('; ')}`);
  }
  const on = results.find((r) => r.watchCache);
  if (on !== undefined && on.churn.perSec < 0.95 * cfg.rate) {
    out.push(
      `! the server answered only ${n0(on.churn.perSec)} of ${n0(cfg.rate)} writes/s with the cache: write → receipt then includes the writes' own queueing; ack → receipt isolates delivery.`,
    );
  }
  out.push(
    "memory per pod: growth of the server's heap used + external memory (Buffers) from before the pods to after their creation and",
  );
  out.push(
    "the full LISTs (which make the cache encode every pod's response bytes), each read after a full GC through the inspector,",
  );
  out.push('divided by the pods; RSS: the same for resident memory. JSON: the average item size of a full LIST.');
  return out;
}
