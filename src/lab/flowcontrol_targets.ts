/**
 * report.json's flowControl section and the throttling experiment's targets
 * (issue 25): node heartbeat p99 under the noisy neighbour below 1 s and no
 * node turning NotReady, beside the per-priority-level figures, the Lease
 * writes refused with 429, and the neighbour's own view and share.
 */
import type { ApiLatencyEntry, ApiSnapshot } from './api_metrics.js';
import { priorityLevels, schemaShare, type PriorityLevelEntry } from './flowcontrol_report.js';
import type { SloEntry } from './measure.js';
import type { NoisyNeighbourStats } from './noisy_neighbour.js';
import type { ProcSeries } from './proc.js';

/** The FlowSchema upstream's bootstrap configuration puts every other ServiceAccount in (workload-low). */
export const NOISY_FLOW_SCHEMA = 'service-accounts';

/** Node heartbeats over the run. */
export interface HeartbeatFigures {
  /** p99 of Lease writes (PUT and POST) in the worst 5-minute window, s; null when none were seen. */
  leaseWriteP99S: number | null;
  leaseWrites: number;
  /** Lease requests the server answered 429. */
  leaseTooManyRequests: number;
  nodesTurnedNotReady: number;
}

/** report.json's flowControl. */
export interface FlowControlReport {
  /** Whether the server exported any APF series (false with --enable-priority-and-fairness=false). */
  enabled: boolean;
  priorityLevels: PriorityLevelEntry[];
  heartbeat: HeartbeatFigures;
  /** The neighbour's own figures, its FlowSchema's share of all dispatched requests, and its CPU; null when none ran. */
  noisyNeighbour:
    (NoisyNeighbourStats & { flowSchema: string; shareOfDispatched: number | null; avgCores: number | null }) | null;
}

/** Builds the flowControl section from the scrapes, the latency table, the tracker's count and the neighbour's file. */
export function flowControlReport(
  snaps: ApiSnapshot[],
  latency: ApiLatencyEntry[],
  nodesTurnedNotReady: number,
  noisy: NoisyNeighbourStats | null | undefined,
  procs: ProcSeries[],
): FlowControlReport {
  const leases = latency.filter((e) => e.resource === 'leases' && (e.verb === 'PUT' || e.verb === 'POST'));
  const first = snaps[0];
  const last = snaps[snaps.length - 1];
  const cpu = procs.find((p) => p.name === 'noisy-neighbour')?.cpuCores ?? [];
  return {
    enabled: last !== undefined && last.flowControl.levels.size > 0,
    priorityLevels: priorityLevels(snaps),
    heartbeat: {
      leaseWriteP99S: leases.length === 0 ? null : Math.max(...leases.map((e) => e.p99)),
      leaseWrites: leases.reduce((a, e) => a + e.count, 0),
      leaseTooManyRequests:
        last === undefined ? 0 : last.leaseTooManyRequests - (first === last ? 0 : first!.leaseTooManyRequests),
      nodesTurnedNotReady,
    },
    noisyNeighbour:
      noisy === undefined || noisy === null
        ? null
        : {
            ...noisy,
            flowSchema: NOISY_FLOW_SCHEMA,
            shareOfDispatched: schemaShare(snaps, NOISY_FLOW_SCHEMA),
            avgCores: cpu.length === 0 ? null : cpu.reduce((a, b) => a + b, 0) / cpu.length,
          },
  };
}

/** The targets under the noisy neighbour, as SLO-table entries. */
export function flowControlTargets(f: FlowControlReport): SloEntry[] {
  const hb = f.heartbeat;
  return [
    {
      name: 'Node heartbeat (Lease write) p99 under the noisy neighbour',
      kind: 'target',
      measured: hb.leaseWriteP99S,
      threshold: 1,
      unit: 's',
      comparison: '<=',
      pass: hb.leaseWriteP99S !== null && hb.leaseWriteP99S <= 1,
      detail: `leases PUT/POST, worst 5-minute window; ${hb.leaseWrites} writes, ${hb.leaseTooManyRequests} answered 429`,
    },
    {
      name: 'Nodes turned NotReady under the noisy neighbour',
      kind: 'target',
      measured: hb.nodesTurnedNotReady,
      threshold: 0,
      unit: 'nodes',
      comparison: '<=',
      pass: hb.nodesTurnedNotReady === 0,
      detail: 'Ready → not Ready transitions the lab watched',
    },
  ];
}
