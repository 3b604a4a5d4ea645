/**
 * report.html's and the terminal summary's API Priority and Fairness part:
 * the per-priority-level table, node heartbeats, and the noisy neighbour
 * with its own CPU next to the server's event loop lag, since in one Node
 * process seats are not CPU.
 */
import { esc } from './html_page.js';
import type { LabReport } from './report.js';

const n = (v: number | null | undefined, digits = 1): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);
const ms = (s: number | null): string => (s === null ? '-' : n(s * 1000, 1));
const reasons = (r: Record<string, number>): string =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '-';

/** The HTML section; empty for reports without flow-control figures. */
export function flowControlHtml(r: LabReport): string {
  const f = r.flowControl;
  if (f === undefined) return '';
  const rows = f.priorityLevels
    .map(
      (l) =>
        `<tr><td>${esc(l.priorityLevel)}</td><td>${l.nominalSeats}</td><td>${l.dispatched}</td><td>${l.queued}</td><td>${l.rejected}</td><td>${esc(reasons(l.rejectedByReason))}</td><td>${ms(l.waitP50S)} / ${ms(l.waitP99S)}</td><td>${l.inqueuePeak}</td><td>${l.executingSeatsPeak}</td></tr>`,
    )
    .join('');
  const levels = f.enabled
    ? `<table><tr><th>priority level</th><th>nominal seats</th><th>dispatched</th><th>queued first</th><th>rejected</th><th>by reason</th><th>queue wait p50 / p99 (ms)</th><th>peak waiting</th><th>peak seats executing</th></tr>${rows}</table>`
    : '<p>The server ran without API Priority and Fairness (--enable-priority-and-fairness=false): max-in-flight only, no priority levels.</p>';
  const hb = f.heartbeat;
  const heartbeat = `<p>Node heartbeats: Lease writes p99 <b>${ms(hb.leaseWriteP99S)} ms</b> (${hb.leaseWrites} writes), <b>${hb.leaseTooManyRequests}</b> Lease requests answered 429, <b>${hb.nodesTurnedNotReady}</b> nodes turned NotReady.</p>`;
  return levels + heartbeat + noisyHtml(r);
}

function noisyHtml(r: LabReport): string {
  const nn = r.flowControl?.noisyNeighbour;
  if (nn === null || nn === undefined) return '';
  const row = (what: string, c: typeof nn.lists): string =>
    `<tr><td>${what}</td><td>${c.sent}</td><td>${c.ok}</td><td>${c.tooManyRequests}</td><td>${c.otherErrors}${c.lastError === undefined ? '' : ` (${esc(c.lastError)})`}</td><td>${n(c.latencyMs.p50)} / ${n(c.latencyMs.p99)}</td></tr>`;
  const lag = r.serverRuntime.eventLoopLagP99Ms;
  const server = r.processes.find((p) => p.name === 'server');
  return `<p>The noisy neighbour (ServiceAccount, FlowSchema ${esc(nn.flowSchema)}: ${nn.shareOfDispatched === null ? '-' : `${n(nn.shareOfDispatched * 100)}%`} of all requests APF dispatched), ${nn.load.listsInFlight} LISTs and ${nn.load.writesInFlight} writes in flight:</p>
<table><tr><th>calls</th><th>sent</th><th>ok</th><th>429</th><th>other errors</th><th>latency p50 / p99 (ms)</th></tr>${row('pod LISTs (cluster)', nn.lists)}${row('ConfigMap PATCHes', nn.writes)}</table>
<p>In one Node process seats are not CPU: server CPU ${n(server?.avgCores, 2)} cores, its event loop lag p99 per interval ${n(lag.p50, 0)} ms (median) / ${n(lag.max, 0)} ms (worst); the neighbour's own CPU ${n(nn.avgCores, 2)} cores.</p>`;
}

/** Terminal summary lines. */
export function flowControlSummaryLines(r: LabReport): string[] {
  const f = r.flowControl;
  if (f === undefined) return [];
  const out: string[] = [];
  if (f.enabled) {
    out.push('priority level     seats  dispatched  queued  rejected  wait p99 (ms)  peak waiting  peak seats');
    for (const l of f.priorityLevels)
      out.push(
        `${l.priorityLevel.padEnd(18)} ${String(l.nominalSeats).padStart(5)} ${String(l.dispatched).padStart(11)} ${String(l.queued).padStart(7)} ${String(l.rejected).padStart(9)} ${ms(l.waitP99S).padStart(14)} ${String(l.inqueuePeak).padStart(13)} ${String(l.executingSeatsPeak).padStart(11)}`,
      );
  }
  const hb = f.heartbeat;
  out.push(
    `node heartbeats: Lease write p99 ${ms(hb.leaseWriteP99S)} ms over ${hb.leaseWrites} writes, ${hb.leaseTooManyRequests} answered 429, ${hb.nodesTurnedNotReady} nodes turned NotReady`,
  );
  const nn = f.noisyNeighbour;
  if (nn !== null)
    out.push(
      `noisy neighbour: LISTs ${nn.lists.ok}/${nn.lists.sent} ok, ${nn.lists.tooManyRequests} 429; writes ${nn.writes.ok}/${nn.writes.sent} ok, ${nn.writes.tooManyRequests} 429; its CPU ${n(nn.avgCores, 2)} cores`,
    );
  return out;
}
