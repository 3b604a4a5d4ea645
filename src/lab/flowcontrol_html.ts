/**
 * report.html's and the terminal summary's API Priority and Fairness part:
 * the per-priority-level table, node heartbeats, and the noisy neighbour
 * with its own CPU next to the server's event loop lag, since in one Node
 * process seats are not CPU; and the lesson the figures show, or fail to.
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
  const lesson = throttlingLesson(r);
  return (
    levels + heartbeat + noisyHtml(r) + (lesson === '' ? '' : `<p class="lesson"><b>Lesson.</b> ${esc(lesson)}</p>`)
  );
}

/**
 * The throttling experiment's lesson, read from this run's figures: under APF the neighbour waits and gets the 429s
 * while heartbeats keep their seats; under max-in-flight alone it takes the slots Lease renewals need. Empty without
 * a noisy neighbour.
 */
export function throttlingLesson(r: LabReport): string {
  const f = r.flowControl;
  const nn = f?.noisyNeighbour;
  if (f === undefined || nn === null || nn === undefined) return '';
  const hb = f.heartbeat;
  const healthy = hb.leaseWriteP99S !== null && hb.leaseWriteP99S <= 1 && hb.nodesTurnedNotReady === 0;
  const nodes = `Lease write p99 ${ms(hb.leaseWriteP99S)} ms, ${hb.leaseTooManyRequests} Lease requests answered 429, ${hb.nodesTurnedNotReady} nodes turned NotReady`;
  const flood = `the neighbour got ${nn.lists.tooManyRequests + nn.writes.tooManyRequests} 429s`;
  const server = r.processes.find((p) => p.name === 'server');
  const cpu = `Seats are not CPU: the server used ${n(server?.avgCores, 2)} cores with event loop lag p99 up to ${n(r.serverRuntime.eventLoopLagP99Ms.max, 0)} ms and the neighbour ${n(nn.avgCores, 2)} cores, so a slow heartbeat with no 429 is the event loop, not the queues.`;
  if (f.enabled) {
    const low = f.priorityLevels.find((l) => l.priorityLevel === 'workload-low');
    const held = low === undefined ? '' : ` (workload-low queued ${low.queued}, rejected ${low.rejected})`;
    const shown =
      healthy && hb.leaseTooManyRequests === 0 ? 'Shown here' : 'Not shown here (a heartbeat figure misses the target)';
    return `API Priority and Fairness gives each kind of client its own share: the noisy neighbour waits in its own level and gets the 429s while node heartbeats keep their seats. ${shown}: ${flood}${held}; ${nodes}. ${cpu}`;
  }
  const shown =
    !healthy || hb.leaseTooManyRequests > 0
      ? 'Shown here'
      : 'Not shown here (the flood did not take the slots the Leases needed at this size)';
  return `With max-in-flight alone whoever arrives takes a free slot: the noisy neighbour's flood takes the mutating slots Lease renewals need and the nodes get 429s. ${shown}: ${flood}; ${nodes}. ${cpu}`;
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
      `lesson: ${throttlingLesson(r)}`,
    );
  return out;
}
