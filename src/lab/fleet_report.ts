/**
 * The fleet processes' own view of the run, read from their control
 * endpoints at the end: request counters and the fleet's share of pod
 * startup (start lateness, status PATCH latency as the client saw it, event
 * loop delay), so the report can tell the simulation's delay from the
 * API server's.
 */
import { callFleet, findFleets, type FleetStats } from '../kubelet/index.js';

/** One fleet process's counters, by its node name prefix. */
export interface FleetReport {
  namePrefix: string;
  pid: number;
  stats: FleetStats | null;
  error?: string;
}

/** Reads every running fleet beside `kubeconfig`; a fleet that does not answer is reported with its error. */
export async function collectFleetReports(kubeconfig: string): Promise<FleetReport[]> {
  return Promise.all(
    findFleets(kubeconfig).map(async (f) => {
      try {
        return { namePrefix: f.namePrefix, pid: f.pid, stats: await callFleet<FleetStats>(f, 'GET', '/status') };
      } catch (err) {
        return { namePrefix: f.namePrefix, pid: f.pid, stats: null, error: (err as Error).message };
      }
    }),
  );
}

/** Summary lines: per fleet process, the start lateness, status PATCH and event-loop delay percentiles. */
export function fleetSummaryLines(fleets: FleetReport[]): string[] {
  const f = (v: number): string => (Number.isFinite(v) ? v.toFixed(0) : '-');
  return fleets.map((r) => {
    const s = r.stats?.podStart;
    if (s === undefined) return `  fleet ${r.namePrefix}: no figures (${r.error ?? 'not reported'})`;
    return (
      `  fleet ${r.namePrefix}: start lateness p50 ${f(s.lateness.p50)} p99 ${f(s.lateness.p99)}; ` +
      `status PATCH (client) p50 ${f(s.statusPatch.p50)} p99 ${f(s.statusPatch.p99)} max ${f(s.statusPatch.max)}; ` +
      `event loop delay p99 ${f(s.eventLoopDelay.p99)} max ${f(s.eventLoopDelay.max)}`
    );
  });
}
