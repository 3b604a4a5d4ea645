/**
 * report.json: every figure of a run, machine-readable, with the exact
 * settings; and the terminal summary printed at the end of `kscale up`.
 */
import { execFileSync } from 'node:child_process';
import type { ChaosFault } from './chaos/index.js';
import { cpus, loadavg, totalmem } from 'node:os';
import {
  apiLatencies,
  apiSeries,
  clientApiLatencies,
  latencyCdf,
  type ApiLatencyEntry,
  type ApiSeries,
  type ApiSnapshot,
  type SliClass,
} from './api_metrics.js';
import type { LabConfig } from './config.js';
import type { KindCount } from './object_tracker.js';
import type { Capabilities } from './components.js';
import { capacityMeasurement, type CapacityMeasurement } from './capacity/index.js';
import { fleetSummaryLines, fleetTotal, type FleetReport, type FleetTotal } from './fleet_report.js';
import { flowControlSummaryLines } from './flowcontrol_html.js';
import { flowControlReport, flowControlTargets, type FlowControlReport } from './flowcontrol_targets.js';
import type { ClientLatencies, PhaseResult, WorkloadMode } from './load.js';
import {
  podStartup,
  podStartupByPhase,
  schedulingThroughput,
  sloEntries,
  type PhaseStartup,
  type PodStartup,
  type SloEntry,
} from './measure.js';
import type { NoisyNeighbourStats } from './noisy_neighbour.js';
import type { PodTimes } from './pod_tracker.js';
import type { ProcSeries } from './proc.js';
import { percentiles, type Percentiles } from './stats.js';
import type { PromSloReport } from './prom_slo.js';

/** The machine a run happened on. */
export interface MachineInfo {
  cpus: number;
  memoryGiB: number;
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

/** A whole run's report (report.json). */
export interface LabReport {
  /** Each fault of a `--chaos` run: its component, recovery times and acknowledged writes checked and lost. */
  chaos?: ChaosFault[];
  /** The lab's objects per kind (Deployment, StatefulSet, DaemonSet, CronJob, ConfigMap, PersistentVolumeClaim…): created, the most at once, the most ready at once, deleted, and seconds to each phase's target. */
  objects?: Record<string, KindCount>;
  kind: 'kscale-lab-report';
  version: 1;
  date: string;
  commit: string | null;
  machine: MachineInfo;
  config: Omit<LabConfig, 'scenario' | 'mode'> & {
    scenario: { name: string; description: string; source: string };
    mode: WorkloadMode;
  };
  capabilities: Capabilities;
  /** Plain statements about how this run differs from a real cluster's, or what it could not measure. */
  notes: string[];
  result: 'completed' | 'failed' | 'interrupted';
  error?: string;
  totalS: number;
  phases: PhaseResult[];
  slos: SloEntry[];
  api: {
    /**
     * Where the API latency SLIs come from: the server's apiserver_request_sli_duration_seconds, or (`kscale load`
     * with a credential that may not read /metrics) the lab's own timings of its calls. Absent in older reports: server.
     */
    source?: ApiLatencySource;
    latency: ApiLatencyEntry[];
    series: ApiSeries;
    cdf: Record<SliClass, { le: number[]; fraction: number[] }>;
    scrapes: number;
    scrapeErrors: number;
  };
  client: Record<string, Percentiles>;
  podStartup: PodStartup;
  /** Pod startup of the pods created in each phase. */
  podStartupByPhase: PhaseStartup[];
  /** Each fleet process's counters and its share of pod startup, read at the end of the run. */
  fleets: FleetReport[];
  /** The fleet processes' counters summed (several processes share the node range). */
  fleetTotal?: FleetTotal;
  /** The run in the capacity model's terms (drivers and averaged figures), for `kscale lab calibrate`. */
  capacity?: CapacityMeasurement;
  scheduling: ReturnType<typeof schedulingThroughput>;
  storage: { opsPerSec: Percentiles; serverWriteBytesPerSec: Percentiles; serverReadBytesPerSec: Percentiles };
  watch: { apiserverEventsDispatchedPerSec: Percentiles; labWatchEvents: number };
  /**
   * The API server's runtime over the scrape intervals: event loop lag (a busy or GC-paused loop
   * delays requests before they are timed, so it is latency the SLI histograms do not see) and
   * the share of time spent in GC. Percentiles are over intervals.
   */
  serverRuntime: { eventLoopLagP99Ms: Percentiles; eventLoopLagMaxMs: Percentiles; gcShare: Percentiles };
  /** API Priority and Fairness per priority level, node heartbeats, and the noisy neighbour (absent in older reports). */
  flowControl?: FlowControlReport;
  processes: (ProcSeries & { peakRssMiB: number; avgCores: number })[];
  /** `--prometheus`: ClusterLoader2's PromQL SLIs beside the lab's own, and whether they agree. */
  prometheus?: PromSloReport;
}

/** Where a report's API latency SLIs were measured. */
export type ApiLatencySource = 'server-metrics' | 'client';

/** What a run collected, to build the report from. */
export interface RunRecord {
  config: LabConfig;
  mode: WorkloadMode;
  capabilities: Capabilities;
  notes: string[];
  result: LabReport['result'];
  error?: string;
  totalS: number;
  phases: PhaseResult[];
  snapshots: ApiSnapshot[];
  /** Default server-metrics; client: the API SLIs from `client` (the server's /metrics was not readable). */
  apiLatencySource?: ApiLatencySource;
  scrapeErrors: number;
  pods: Iterable<PodTimes>;
  scheduledTimes: number[];
  labWatchEvents: number;
  client: ClientLatencies;
  procs: ProcSeries[];
  machine: MachineInfo;
  /** The commit the run started from. */
  commit: string | null;
  /** Pods Running per second while the create phase issued pods. */
  createRate: number | undefined;
  fleets: FleetReport[];
  /** When the run started (ms since the epoch): phases' start and end are seconds since then. */
  startedAtMs: number;
  /** Times a Ready node turned not Ready during the run. */
  nodesTurnedNotReady?: number;
  /** The noisy neighbour's own figures, when one ran (null: it saved none). */
  noisyNeighbour?: NoisyNeighbourStats | null;
}

/** The current commit, when run from a git checkout. */
export function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/** The machine now. */
export function machineNow(): MachineInfo {
  return {
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverageStart: loadavg(),
    loadAverageEnd: loadavg(),
  };
}

/** Builds report.json's content. */
export function buildReport(r: RunRecord): LabReport {
  const source = r.apiLatencySource ?? 'server-metrics';
  const latency = source === 'client' ? clientApiLatencies(r.client, r.totalS) : apiLatencies(r.snapshots);
  const pods = [...r.pods];
  const startup = podStartup(pods, r.config.fleet.podStartupMs);
  const series = apiSeries(r.snapshots);
  const server = r.procs.find((p) => p.name === 'server');
  const { scenario, ...rest } = r.config;
  const flowControl = flowControlReport(r.snapshots, latency, r.nodesTurnedNotReady ?? 0, r.noisyNeighbour, r.procs);
  return {
    kind: 'kscale-lab-report',
    version: 1,
    date: new Date().toISOString(),
    commit: r.commit,
    machine: r.machine,
    config: {
      ...rest,
      mode: r.mode,
      scenario: { name: scenario.name, description: scenario.description, source: scenario.source },
    },
    capabilities: r.capabilities,
    notes: r.notes,
    result: r.result,
    ...(r.error !== undefined ? { error: r.error } : {}),
    totalS: r.totalS,
    phases: r.phases,
    slos: [
      ...sloEntries(latency, startup, r.createRate, 100, r.config.podRate, source === 'client'),
      ...(r.noisyNeighbour !== undefined ? flowControlTargets(flowControl) : []),
    ],
    api: {
      source,
      latency,
      series,
      cdf: {
        mutating: latencyCdf(r.snapshots, 'mutating'),
        'read-resource': latencyCdf(r.snapshots, 'read-resource'),
        'read-namespace': latencyCdf(r.snapshots, 'read-namespace'),
        'read-cluster': latencyCdf(r.snapshots, 'read-cluster'),
      },
      scrapes: r.snapshots.length,
      scrapeErrors: r.scrapeErrors,
    },
    client: Object.fromEntries([...r.client].map(([k, v]) => [k, percentiles(v)])),
    podStartup: startup,
    podStartupByPhase: podStartupByPhase(pods, r.phases, r.startedAtMs, r.config.fleet.podStartupMs),
    fleets: r.fleets,
    fleetTotal: fleetTotal(r.fleets),
    ...capacityOf(r),
    scheduling: schedulingThroughput(r.scheduledTimes),
    storage: {
      opsPerSec: percentiles(series.storageOpsPerSec),
      serverWriteBytesPerSec: percentiles(server?.writeBytesPerSec ?? []),
      serverReadBytesPerSec: percentiles(server?.readBytesPerSec ?? []),
    },
    watch: { apiserverEventsDispatchedPerSec: percentiles(series.watchEventsPerSec), labWatchEvents: r.labWatchEvents },
    serverRuntime: {
      eventLoopLagP99Ms: percentiles(present(series.eventLoopLagP99Ms)),
      eventLoopLagMaxMs: percentiles(present(series.eventLoopLagMaxMs)),
      gcShare: percentiles(series.gcShare),
    },
    flowControl,
    processes: r.procs.map((p) => ({
      ...p,
      peakRssMiB: p.peakRssBytes / 2 ** 20,
      avgCores: p.cpuCores.length === 0 ? 0 : p.cpuCores.reduce((a, b) => a + b, 0) / p.cpuCores.length,
    })),
  };
}

/** The run's capacity figures, or nothing when the run scraped too little to average. */
function capacityOf(r: RunRecord): { capacity?: CapacityMeasurement } {
  const m = capacityMeasurement({
    config: r.config,
    snapshots: r.snapshots,
    procs: r.procs,
    phases: r.phases,
    fleetTotal: fleetTotal(r.fleets),
    totalS: r.totalS,
  });
  return m === undefined ? {} : { capacity: m };
}

const f = (v: number | null | undefined, digits = 3): string =>
  v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits);

/** The terminal summary: phases, SLOs, pod startup, processes. */
export function summaryText(rep: LabReport): string {
  const lines: string[] = [];
  const c = rep.config;
  lines.push(
    `kscale lab: ${c.nodes} nodes, ${c.podsPerNode} pods/node, scenario ${c.scenario.name}, pod rate ${c.podRate}/s, workloads=${c.mode.workloads} binding=${c.mode.binding}: ${rep.result} in ${f(rep.totalS, 0)} s`,
  );
  lines.push('');
  lines.push('phase            time (s)  pods  issue/s  running/s  done');
  for (const p of rep.phases)
    lines.push(
      `${p.name.padEnd(16)} ${f(p.durationS, 1).padStart(8)} ${String(p.podsRequested).padStart(5)} ${f(p.issueRatePerSec, 1).padStart(8)} ${f(p.achievedPodsPerSec, 1).padStart(10)}  ${p.completed ? 'yes' : `NO (${p.note ?? ''})`}`,
    );
  lines.push('');
  lines.push('SLO / target                                                  measured   threshold  pass');
  for (const s of rep.slos)
    lines.push(
      `${s.name.padEnd(61)} ${`${f(s.measured)} ${s.unit}`.padStart(10)} ${`${s.comparison} ${s.threshold}`.padStart(10)}  ${s.pass ? 'PASS' : 'FAIL'}`,
    );
  const ps = rep.podStartup;
  lines.push('');
  lines.push(
    `pod startup (ms, ${ps.pods} pods)   p50 ${f(ps.total.p50, 0)}  p90 ${f(ps.total.p90, 0)}  p99 ${f(ps.total.p99, 0)}`,
  );
  lines.push(
    `  create → scheduled              p50 ${f(ps.createToScheduled.p50, 0)}  p99 ${f(ps.createToScheduled.p99, 0)}`,
  );
  lines.push(
    `  scheduled → kubelet + watch      p50 ${f(ps.scheduledToKubeletAndWatch.p50, 0)}  p99 ${f(ps.scheduledToKubeletAndWatch.p99, 0)}`,
  );
  lines.push(`  simulated container start        ${ps.simulatedStartMs} (fixed)`);
  lines.push(`  control plane share              p50 ${f(ps.controlPlane.p50, 0)}  p99 ${f(ps.controlPlane.p99, 0)}`);
  // Reports written before the stateless split have none.
  if (ps.stateless !== undefined)
    lines.push(
      `  stateless pods (the SLO's)       p50 ${f(ps.stateless.p50, 0)}  p99 ${f(ps.stateless.p99, 0)}  (${ps.statefulPods} with persistent volumes left out)`,
    );
  for (const b of rep.podStartupByPhase ?? []) {
    lines.push(
      `  created in ${b.phase.padEnd(16)} ${String(b.pods).padStart(6)} pods: p50 ${f(b.total.p50, 0)}  p99 ${f(b.total.p99, 0)}  (scheduled → kubelet + watch p99 ${f(b.scheduledToKubeletAndWatch.p99, 0)})`,
    );
    // Reports written before the breakdown have none.
    for (const o of b.byOwner ?? [])
      lines.push(
        `    of them by ${o.owner.padEnd(14)} ${String(o.pods).padStart(6)} pods: p50 ${f(o.total.p50, 0)}  p99 ${f(o.total.p99, 0)}  (created → scheduled p99 ${f(o.createToScheduled.p99, 0)})`,
      );
  }
  lines.push(...fleetSummaryLines(rep.fleets ?? []));
  lines.push(...flowControlSummaryLines(rep));
  const rt = rep.serverRuntime;
  if (rt !== undefined && rt.eventLoopLagP99Ms.count > 0) {
    lines.push(
      `server event loop lag (ms/interval) p99: p50 ${f(rt.eventLoopLagP99Ms.p50, 0)}  p90 ${f(rt.eventLoopLagP99Ms.p90, 0)}  max ${f(rt.eventLoopLagP99Ms.max, 0)}; max: p50 ${f(rt.eventLoopLagMaxMs.p50, 0)}  max ${f(rt.eventLoopLagMaxMs.max, 0)}; time in GC p50 ${f(rt.gcShare.p50 * 100, 1)}%  max ${f(rt.gcShare.max * 100, 1)}%`,
    );
  }
  lines.push(
    `scheduling throughput (pods/s)     avg ${f(rep.scheduling.average, 1)}  p50 ${f(rep.scheduling.p50, 0)}  max ${f(rep.scheduling.max, 0)}`,
  );
  lines.push('');
  lines.push('process              peak RSS (MiB)  CPU (s)  avg cores');
  for (const p of rep.processes)
    lines.push(
      `${p.name.padEnd(20)} ${f(p.peakRssMiB, 0).padStart(14)} ${f(p.totalCpuSeconds, 1).padStart(8)} ${f(p.avgCores, 2).padStart(10)}`,
    );
  lines.push(
    `load average at start ${rep.machine.loadAverageStart.map((x) => x.toFixed(2)).join(' ')}, at end ${rep.machine.loadAverageEnd.map((x) => x.toFixed(2)).join(' ')}`,
  );
  for (const n of rep.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}

function present(values: (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null);
}
