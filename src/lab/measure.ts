/**
 * Turns what the lab recorded into figures: pod startup latency and its
 * breakdown, scheduling throughput, and the SLO entries of the report, each
 * with its measured value, threshold and pass.
 */
import type { ApiLatencyEntry, SliClass } from './api_metrics.js';
import type { PodTimes } from './pod_tracker.js';
import { cdfOf, percentiles, type Percentiles } from './stats.js';

/** Pod startup latency, ms, split into its parts. */
export interface PodStartup {
  /** Pods that were created during the run and seen Running. */
  pods: number;
  /** Created until Running is observed by the lab's watch, every pod. */
  total: Percentiles;
  /** The same over stateless pods only: upstream's SLI, which the SLO is judged on. */
  stateless: Percentiles;
  /** Pods left out of `stateless`: they mount a claim or another volume that is not stateless. */
  statefulPods: number;
  createToScheduled: Percentiles;
  /** Scheduled until Running observed, less the fixed simulated start: the kubelet's watch, its status write, and the watch back. */
  scheduledToKubeletAndWatch: Percentiles;
  /** The hollow kubelet's fixed simulated container start. */
  simulatedStartMs: number;
  /** total − simulated start: what the control plane (and the hollow kubelet's API calls) cost. */
  controlPlane: Percentiles;
  /** For pods the lab created itself: its create call's start until its watch saw the pod. */
  createToWatchSeen: Percentiles;
  /** Where `created` is taken from. */
  createdFrom: string;
  cdfMs: { x: number[]; y: number[] };
}

/** Pod startup figures over the pods that ran. */
export function podStartup(pods: Iterable<PodTimes>, simulatedStartMs: number): PodStartup {
  const total: number[] = [];
  const stateless: number[] = [];
  const toSched: number[] = [];
  const rest: number[] = [];
  const cp: number[] = [];
  const seen: number[] = [];
  let fromClient = 0;
  for (const p of pods) {
    if (p.createSentAt !== undefined) seen.push(p.seenAt - p.createSentAt);
    if (p.runningAt === undefined) continue;
    const created = p.createSentAt ?? p.seenAt;
    if (p.createSentAt !== undefined) fromClient++;
    const sched = p.scheduledAt ?? created;
    total.push(p.runningAt - created);
    if (p.stateful !== true) stateless.push(p.runningAt - created);
    toSched.push(sched - created);
    rest.push(p.runningAt - sched - simulatedStartMs);
    cp.push(p.runningAt - created - simulatedStartMs);
  }
  return {
    pods: total.length,
    total: percentiles(total),
    stateless: percentiles(stateless),
    statefulPods: total.length - stateless.length,
    createToScheduled: percentiles(toSched),
    scheduledToKubeletAndWatch: percentiles(rest),
    simulatedStartMs,
    controlPlane: percentiles(cp),
    createToWatchSeen: percentiles(seen),
    createdFrom:
      fromClient === total.length
        ? "the start of the lab's create call"
        : "the lab's create call for pods it made itself; for controller-made pods, the first watch event (creationTimestamp has 1 s resolution)",
    cdfMs: cdfOf(total),
  };
}

/** Pod startup of the pods created during one phase. */
export interface PhaseStartup {
  phase: string;
  pods: number;
  total: Percentiles;
  createToScheduled: Percentiles;
  scheduledToKubeletAndWatch: Percentiles;
  /** The same pods by the kind of their controller ('none': the lab's own), most pods first. */
  byOwner: OwnerStartup[];
}

/** Pod startup of one phase's pods with one kind of controller: a DaemonSet's pods all come at once. */
export interface OwnerStartup {
  owner: string;
  pods: number;
  total: Percentiles;
  createToScheduled: Percentiles;
}

interface StartupSamples {
  total: number[];
  toSched: number[];
}

/** Pod startup split by the phase in which each pod was created (`phases` in seconds since `t0Ms`). */
export function podStartupByPhase(
  pods: Iterable<PodTimes>,
  phases: { name: string; start: number; end: number }[],
  t0Ms: number,
  simulatedStartMs: number,
): PhaseStartup[] {
  const buckets = phases.map(() => ({
    total: [] as number[],
    toSched: [] as number[],
    rest: [] as number[],
    owners: new Map<string, StartupSamples>(),
  }));
  for (const p of pods) {
    if (p.runningAt === undefined) continue;
    const created = p.createSentAt ?? p.seenAt;
    const t = (created - t0Ms) / 1000;
    const i = phases.findIndex((ph) => t >= ph.start && t < ph.end);
    if (i < 0) continue;
    const b = buckets[i]!;
    const sched = p.scheduledAt ?? created;
    b.total.push(p.runningAt - created);
    b.toSched.push(sched - created);
    b.rest.push(p.runningAt - sched - simulatedStartMs);
    const owner = p.owner ?? 'none';
    let o = b.owners.get(owner);
    if (o === undefined) b.owners.set(owner, (o = { total: [], toSched: [] }));
    o.total.push(p.runningAt - created);
    o.toSched.push(sched - created);
  }
  return phases
    .map((ph, i) => ({
      phase: ph.name,
      pods: buckets[i]!.total.length,
      total: percentiles(buckets[i]!.total),
      createToScheduled: percentiles(buckets[i]!.toSched),
      scheduledToKubeletAndWatch: percentiles(buckets[i]!.rest),
      byOwner: [...buckets[i]!.owners]
        .map(([owner, o]) => ({
          owner,
          pods: o.total.length,
          total: percentiles(o.total),
          createToScheduled: percentiles(o.toSched),
        }))
        .sort((a, b) => b.pods - a.pods || a.owner.localeCompare(b.owner)),
    }))
    .filter((b) => b.pods > 0);
}

/** Pods scheduled per second, over the seconds between the first and the last scheduling. */
export function schedulingThroughput(
  times: number[],
): Percentiles & { average: number; series: { t: number[]; perSec: number[] } } {
  if (times.length === 0) return { ...percentiles([]), average: 0, series: { t: [], perSec: [] } };
  const first = Math.min(...times.slice(0, 1000), times[0]!);
  const counts = new Map<number, number>();
  let last = first;
  for (const t of times) {
    const s = Math.floor((t - first) / 1000);
    counts.set(s, (counts.get(s) ?? 0) + 1);
    last = Math.max(last, t);
  }
  const secs = Math.floor((last - first) / 1000) + 1;
  const perSec = Array.from({ length: secs }, (_, i) => counts.get(i) ?? 0);
  return {
    ...percentiles(perSec),
    average: times.length / Math.max(1, (last - first) / 1000),
    series: { t: perSec.map((_, i) => i), perSec },
  };
}

/** One SLO (or target) with what was measured. */
export interface SloEntry {
  name: string;
  /** 'slo': sig-scalability's SLOs; 'target': the issue's targets beyond them. */
  kind: 'slo' | 'target';
  measured: number | null;
  threshold: number;
  unit: string;
  /** Whether lower is better (latency) or higher (rates). */
  comparison: '<=' | '>=';
  pass: boolean;
  /** Which call or phase the figure comes from. */
  detail: string;
}

const SLI_THRESHOLDS: [SliClass, string, number][] = [
  ['mutating', 'Mutating API call latency p99 (single object)', 1],
  ['read-resource', 'Read-only API call latency p99 (single object)', 1],
  ['read-namespace', 'Read-only API call latency p99 (namespace-scoped list)', 5],
  ['read-cluster', 'Read-only API call latency p99 (cluster-scoped list)', 30],
];

/**
 * The SLO entries: each API SLI's worst (resource, verb, scope) p99 over 5-minute windows, and pod startup p99.
 * `clientSide`: the API figures are the lab's own timings over the whole run, and their details say so.
 */
export function sloEntries(
  api: ApiLatencyEntry[],
  startup: PodStartup,
  createRate: number | undefined,
  targetRate: number,
  askedRate: number,
  clientSide = false,
): SloEntry[] {
  const window = (end: number): string =>
    clientSide
      ? `measured client-side (the lab's own timings, the network included) over the run to ${end.toFixed(0)} s`
      : `5-minute window ending at ${end.toFixed(0)} s`;
  const out: SloEntry[] = [];
  for (const [cls, name, threshold] of SLI_THRESHOLDS) {
    const worst = api.filter((e) => e.sli === cls).sort((a, b) => b.p99 - a.p99)[0];
    out.push({
      name,
      kind: 'slo',
      measured: worst === undefined ? null : worst.p99,
      threshold,
      unit: 's',
      comparison: '<=',
      // Not measured is not a pass.
      pass: worst !== undefined && worst.p99 <= threshold,
      detail:
        worst === undefined
          ? 'not measured: no such calls in this run'
          : `worst: ${worst.verb} ${worst.resource}${worst.subresource === '' ? '' : `/${worst.subresource}`} (${worst.scope}), ${worst.count} calls, ${window(worst.windowEnd)}`,
    });
  }
  // Upstream's SLI counts stateless pods only; the pods left out and the p99 of all are in the detail.
  const statelessPods = startup.pods - startup.statefulPods;
  const p99 = statelessPods === 0 ? null : startup.stateless.p99 / 1000;
  const leftOut =
    startup.statefulPods === 0
      ? ''
      : `; ${startup.statefulPods} pods with persistent volumes left out (all ${startup.pods}: p99 ${(startup.total.p99 / 1000).toFixed(3)} s)`;
  out.push({
    name: 'Pod startup latency p99 (stateless pods, created until Running is watched)',
    kind: 'slo',
    measured: p99,
    threshold: 5,
    unit: 's',
    comparison: '<=',
    pass: p99 !== null && p99 <= 5,
    detail: `${statelessPods} pods; includes the fixed ${startup.simulatedStartMs} ms simulated start; control plane share p99 ${(startup.controlPlane.p99 / 1000).toFixed(3)} s${leftOut}`,
  });
  if (createRate !== undefined) {
    out.push({
      name: 'Pod creation rate (create phase: pods Running per second)',
      kind: 'target',
      measured: createRate,
      threshold: targetRate,
      unit: 'pods/s',
      comparison: '>=',
      pass: createRate >= targetRate,
      detail: `the lab created pods at --pod-rate ${askedRate}/s; counted from the first to the last pod Running in the phase`,
    });
  }
  return out;
}
