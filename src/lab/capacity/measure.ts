/**
 * What one lab run measured, in the capacity model's terms (report.json's
 * `capacity`): its drivers, and every figure averaged over the scrape window:
 * API requests/s per resource and verb (the SLI histograms' counts, so WATCH
 * is not among them), storage writes/s (create, guaranteedUpdate, delete),
 * the server's and lab etcd's disk bytes written/s, watch events dispatched/s,
 * and per component its mean CPU-seconds per second and peak RSS.
 */
import { parseDuration } from '../../api/index.js';
import type { ApiSnapshot } from '../api_metrics.js';
import type { LabConfig } from '../config.js';
import type { FleetTotal } from '../fleet_report.js';
import type { PhaseResult } from '../load.js';
import type { ProcSeries } from '../proc.js';
import { bucketTotal } from '../prom.js';
import type { CapacityMeasurement } from './fit.js';

const WRITES = ['create', 'guaranteedUpdate', 'delete'];

/** What a run collected that the capacity figures come from. */
export interface CapacityInput {
  config: Pick<LabConfig, 'nodes' | 'podsPerNode'> & { fleet: Pick<LabConfig['fleet'], 'nodeStatusUpdateFrequency'> };
  snapshots: ApiSnapshot[];
  procs: ProcSeries[];
  phases: PhaseResult[];
  fleetTotal: FleetTotal;
  /** The whole run, s (the fleet's counters cover about this long). */
  totalS: number;
}

/** The component a process belongs to: fleet processes nodes-0, nodes-1 … are all `nodes`. */
export function componentOf(processName: string): string {
  return processName.replace(/-\d+$/, '');
}

/** The run's drivers and figures; undefined when fewer than two scrapes leave no window to average over. */
export function capacityMeasurement(r: CapacityInput): CapacityMeasurement | undefined {
  const first = r.snapshots[0];
  const last = r.snapshots[r.snapshots.length - 1];
  if (first === undefined || last === undefined || last.t <= first.t) return undefined;
  const durationS = last.t - first.t;
  const figures: Record<string, number> = {};
  for (const [key, b] of last.sli) {
    const [resource, sub, verb] = key.split('|');
    const n = bucketTotal(b) - (first.sli.get(key) === undefined ? 0 : bucketTotal(first.sli.get(key)!));
    if (n <= 0) continue;
    figures[`requests:${resource}${sub !== '' ? `/${sub}` : ''} ${verb}`] = n / durationS;
  }
  const writes = (s: ApiSnapshot): number => WRITES.reduce((a, op) => a + (s.storageOps.get(op) ?? 0), 0);
  figures['storage:writes'] = (writes(last) - writes(first)) / durationS;
  figures['watch:events'] = (last.watchEventsDispatched - first.watchEventsDispatched) / durationS;
  const mean = (v: number[]): number => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);
  let diskBytes = 0;
  for (const p of r.procs) {
    const c = componentOf(p.name);
    figures[`cpu:${c}`] = (figures[`cpu:${c}`] ?? 0) + mean(p.cpuCores);
    figures[`memory:${c}`] = (figures[`memory:${c}`] ?? 0) + p.peakRssBytes / 2 ** 20;
    if (c === 'server' || c.startsWith('etcd')) diskBytes += mean(p.writeBytesPerSec);
  }
  figures['storage:bytes'] = diskBytes;
  const pods = r.phases.reduce((a, p) => a + p.podsRequested, 0);
  const statusS = parseDuration(r.config.fleet.nodeStatusUpdateFrequency) / 1000;
  return {
    durationS,
    drivers: {
      const: 1,
      nodes: r.config.nodes,
      pods: r.config.nodes * r.config.podsPerNode,
      leaseRenewalsPerSec: r.totalS > 0 ? (r.fleetTotal.counters.leaseRenewals ?? 0) / r.totalS : 0,
      nodeStatusPerSec: statusS > 0 ? r.config.nodes / statusS : 0,
      podsPerSec: pods / durationS,
    },
    figures,
  };
}
