/**
 * The fleet processes' own view of the run, read from their control
 * endpoints at the end: request counters and the fleet's share of pod
 * startup (start lateness, status PATCH latency as the client saw it, event
 * loop delay), so the report can tell the simulation's delay from the
 * API server's. With several fleet processes, each is reported under its
 * slice of the node range, and `fleetTotal` sums them.
 */
import { callFleet, findFleets, type FleetStats } from '../kubelet/index.js';

/** One fleet process's counters, by its node name prefix and slice of node indexes. */
export interface FleetReport {
  namePrefix: string;
  /** Its first node index and node count (kscale nodes --first-index, --count). */
  firstIndex?: number;
  count?: number;
  pid: number;
  stats: FleetStats | null;
  error?: string;
}

/** The counters of every fleet process that answered, summed; latency figures are each process's worst. */
export interface FleetTotal {
  processes: number;
  answered: number;
  counters: Record<string, number>;
  worst: { latenessP99: number; statusPatchP99: number; eventLoopDelayP99: number };
}

/** Reads every running fleet beside `kubeconfig`, in node order; a fleet that does not answer is reported with its error. */
export async function collectFleetReports(kubeconfig: string): Promise<FleetReport[]> {
  const reports = await Promise.all(
    findFleets(kubeconfig).map(async (f): Promise<FleetReport> => {
      const id = { namePrefix: f.namePrefix, firstIndex: f.firstIndex ?? 0, count: f.count, pid: f.pid };
      try {
        return { ...id, stats: await callFleet<FleetStats>(f, 'GET', '/status') };
      } catch (err) {
        return { ...id, stats: null, error: (err as Error).message };
      }
    }),
  );
  return reports.sort((a, b) => a.namePrefix.localeCompare(b.namePrefix) || (a.firstIndex ?? 0) - (b.firstIndex ?? 0));
}

/** How a fleet process is named in reports: its prefix and node range, e.g. hollow-node-[0..1249]. */
export function fleetLabel(r: FleetReport): string {
  if (r.count === undefined) return r.namePrefix;
  const first = r.firstIndex ?? 0;
  return `${r.namePrefix}[${first}..${first + r.count - 1}]`;
}

/** Sums the numeric counters of every fleet process that answered. */
export function fleetTotal(fleets: FleetReport[]): FleetTotal {
  const counters: Record<string, number> = {};
  const worst = { latenessP99: NaN, statusPatchP99: NaN, eventLoopDelayP99: NaN };
  const max = (a: number, b: number): number => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));
  let answered = 0;
  for (const f of fleets) {
    if (f.stats === null) continue;
    answered++;
    for (const [k, v] of Object.entries(f.stats)) if (typeof v === 'number') counters[k] = (counters[k] ?? 0) + v;
    const s = f.stats.podStart;
    worst.latenessP99 = max(worst.latenessP99, s.lateness.p99);
    worst.statusPatchP99 = max(worst.statusPatchP99, s.statusPatch.p99);
    worst.eventLoopDelayP99 = max(worst.eventLoopDelayP99, s.eventLoopDelay.p99);
  }
  return { processes: fleets.length, answered, counters, worst };
}

/** Summary lines: per fleet process, the start lateness, status PATCH and event-loop delay percentiles; then the total. */
export function fleetSummaryLines(fleets: FleetReport[]): string[] {
  const f = (v: number | undefined): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(0) : '-');
  const lines = fleets.map((r) => {
    const s = r.stats?.podStart;
    if (s === undefined) return `  fleet ${fleetLabel(r)}: no figures (${r.error ?? 'not reported'})`;
    return (
      `  fleet ${fleetLabel(r)}: start lateness p50 ${f(s.lateness.p50)} p99 ${f(s.lateness.p99)}; ` +
      `status PATCH (client) p50 ${f(s.statusPatch.p50)} p99 ${f(s.statusPatch.p99)} max ${f(s.statusPatch.max)}; ` +
      `event loop delay p99 ${f(s.eventLoopDelay.p99)} max ${f(s.eventLoopDelay.max)}`
    );
  });
  if (fleets.length > 1) {
    const t = fleetTotal(fleets);
    const c = t.counters;
    lines.push(
      `  fleet total (${t.answered} of ${t.processes} processes): ${f(c.registered)} of ${f(c.count)} nodes registered, ` +
        `${f(c.podsStarted)} pods started, ${f(c.requests)} requests, ${f(c.leaseRenewals)} lease renewals; ` +
        `worst p99: lateness ${f(t.worst.latenessP99)}, status PATCH ${f(t.worst.statusPatchP99)}, event loop ${f(t.worst.eventLoopDelayP99)}`,
    );
  }
  return lines;
}
