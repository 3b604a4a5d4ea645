/**
 * One pod's trip through the scheduler, like upstream's schedule_one.go.
 * The scheduling cycle (PreFilter, Filter, Score, Reserve, Permit) runs
 * synchronously against the cache; the binding cycle (waiting at Permit,
 * PreBind, Bind) runs asynchronously, so pods/binding calls are in flight
 * while the next pods are scheduled. Feasible-node search starts where the
 * last one stopped and stops at the adaptive percentageOfNodesToScore.
 */
import type { ClientLogger } from '../client/index.js';
import type { Clock } from '../clock/index.js';
import type { SchedulerCache } from './cache/cache.js';
import { CycleState } from './framework/cycle_state.js';
import type { NodeToStatus, QueuedPodInfo } from './framework/interface.js';
import type { NodeInfo } from './framework/node_info.js';
import type { PodInfo } from './framework/pod_info.js';
import type { Framework } from './framework/runtime.js';
import { Code, newStatus, pluginStatus, Status } from './framework/status.js';
import type { SchedulerMetrics } from './metrics/metrics.js';
import type { SchedulingQueue } from './queue/scheduling_queue.js';

/** Upstream's minimum number of feasible nodes to find (minFeasibleNodesToFind). */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** Upstream's floor for the adaptive percentage (minFeasibleNodesPercentageToFind). */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

// The status of the nodes a PreFilterResult left out, as upstream's SetAbsentNodesStatus words it.
const NODE_NAMES_MISMATCH = pluginStatus(
  'NodeAffinity',
  Code.UnschedulableAndUnresolvable,
  "node(s) didn't satisfy plugin(s) [NodeAffinity]",
);

/** How many feasible nodes to look for, like upstream's numFeasibleNodesToFind; percentage 0 means adaptive. */
export function numFeasibleNodesToFind(percentage: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let pct = percentage;
  if (pct <= 0) pct = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.floor(numAllNodes / 125));
  if (pct >= 100) return numAllNodes;
  return Math.max(MIN_FEASIBLE_NODES_TO_FIND, Math.floor((numAllNodes * pct) / 100));
}

/** What the scheduling cycle found when the pod did not fit. */
export interface FitError {
  numAllNodes: number;
  statuses: NodeToStatus;
  /** A status for every node (PreFilter rejected the pod). */
  preFilter?: Status;
  postFilterMessage?: string;
}

/** Upstream's FailedScheduling message: "0/N nodes are available: 3 Insufficient cpu, 2 node(s) had ...". */
export function fitErrorMessage(e: FitError): string {
  if (e.numAllNodes === 0) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  if (e.preFilter !== undefined) for (const r of e.preFilter.reasons) counts.set(r, e.numAllNodes);
  else for (const s of e.statuses.values()) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].map(([r, n]) => `${n} ${r}`).sort();
  let msg = `0/${e.numAllNodes} nodes are available: ${parts.join(', ')}.`;
  if (e.postFilterMessage) msg += ` ${e.postFilterMessage}`;
  return msg;
}

/** Callbacks the scheduler gives the scheduling cycle. */
export interface ScheduleHooks {
  /** The pod did not fit or an error occurred; requeue and report. */
  onFailure(
    fwk: Framework,
    q: QueuedPodInfo,
    status: Status,
    podCycle: number,
    fit: FitError | undefined,
    nominatedNode?: string,
  ): void;
  /** The pod was bound. */
  onBound(fwk: Framework, q: QueuedPodInfo, nodeName: string, startedAt: number): void;
}

/** Runs scheduling cycles and binding cycles. */
export class ScheduleOne {
  private nextStartNodeIndex = 0;
  private feasible: NodeInfo[] = [];
  private totals = new Float64Array(1024);
  private scratch = new Float64Array(1024);
  private inFlightBinds = 0;
  private readonly bindWaiters: (() => void)[] = [];
  /** Binding cycles running, waiting at Permit included (tests and shutdown wait on them). */
  readonly bindingCycles = new Set<Promise<void>>();

  constructor(
    private readonly cache: SchedulerCache,
    private readonly queue: SchedulingQueue,
    private readonly clock: Clock,
    private readonly log: ClientLogger,
    private readonly metrics: SchedulerMetrics,
    private readonly hooks: ScheduleHooks,
    private readonly percentageOfNodesToScore: (fwk: Framework) => number,
    private readonly maxInFlightBindings: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Resolves once fewer than maxInFlightBindings binds are in flight. */
  async bindSlot(): Promise<void> {
    while (this.inFlightBinds >= this.maxInFlightBindings) await new Promise<void>((r) => this.bindWaiters.push(r));
  }

  /** Schedules one popped pod; returns a promise only when PostFilter (preemption) had to run. */
  scheduleOne(fwk: Framework, q: QueuedPodInfo): Promise<void> | undefined {
    const pod = q.podInfo;
    const start = this.clock.now();
    const podCycle = this.queue.cycle;
    const state = new CycleState();
    const fail = (s: Status, fit?: FitError): void => {
      this.metrics.scheduleAttempts.inc({
        result: s.code === Code.Error ? 'error' : 'unschedulable',
        profile: fwk.profileName,
      });
      this.metrics.attemptDuration.observe(
        { result: s.code === Code.Error ? 'error' : 'unschedulable', profile: fwk.profileName },
        (this.clock.now() - start) / 1000,
      );
      this.hooks.onFailure(fwk, q, s, podCycle, fit);
    };
    const numAll = this.cache.nodeCount;
    const pre = fwk.runPreFilterPlugins(state, pod, this.cache);
    if (pre !== null) {
      return this.postFilter(
        fwk,
        state,
        q,
        podCycle,
        pre,
        { numAllNodes: numAll, statuses: new Map(), preFilter: pre },
        fail,
      );
    }
    const statuses: NodeToStatus = new Map();
    const n = this.findNodesThatFit(fwk, state, pod, statuses);
    if (n === 0) {
      const s = newStatus(Code.Unschedulable, 'no fit');
      return this.postFilter(fwk, state, q, podCycle, s, { numAllNodes: numAll, statuses }, fail);
    }
    const host = n === 1 ? this.feasible[0].name : this.prioritize(fwk, state, pod, n);
    // Assume, so the next cycle sees this pod's resources on the node before the binding lands.
    this.cache.assumePod(pod, host);
    const rs = fwk.runReservePluginsReserve(state, pod, host);
    if (rs !== null) {
      fwk.runReservePluginsUnreserve(state, pod, host);
      this.cache.forgetPod(pod.key);
      fail(rs);
      return undefined;
    }
    const permit = fwk.runPermitPlugins(state, pod, host);
    if (permit.code !== Code.Success && permit.code !== Code.Wait) {
      fwk.runReservePluginsUnreserve(state, pod, host);
      this.cache.forgetPod(pod.key);
      fail(permit);
      return undefined;
    }
    const cycle = this.bindingCycle(fwk, state, q, host, start, podCycle).finally(() =>
      this.bindingCycles.delete(cycle),
    );
    this.bindingCycles.add(cycle);
    return undefined;
  }

  private async postFilter(
    fwk: Framework,
    state: CycleState,
    q: QueuedPodInfo,
    podCycle: number,
    s: Status,
    fit: FitError,
    fail: (s: Status, fit?: FitError) => void,
  ): Promise<void> {
    if (s.code === Code.Error || fwk.postFilter.length === 0) return fail(s, fit);
    const statuses = fit.statuses;
    if (fit.preFilter !== undefined) for (const ni of this.cache.nodes()) statuses.set(ni.name, fit.preFilter);
    const r = await fwk.runPostFilterPlugins(state, q.podInfo, statuses);
    if (r.status.reasons.length > 0) fit.postFilterMessage = r.status.message();
    const failure =
      r.status.code === Code.Error ? r.status : s.code === Code.Success ? newStatus(Code.Unschedulable) : s;
    this.metrics.scheduleAttempts.inc({
      result: failure.code === Code.Error ? 'error' : 'unschedulable',
      profile: fwk.profileName,
    });
    this.hooks.onFailure(fwk, q, failure, podCycle, fit, r.nominatedNodeName);
  }

  /** Fills this.feasible with up to numFeasibleNodesToFind nodes, round-robin from where the last search stopped. */
  private findNodesThatFit(fwk: Framework, state: CycleState, pod: PodInfo, statuses: NodeToStatus): number {
    if (state.nodeNames !== undefined) return this.findAmongNamedNodes(fwk, state, pod, statuses, state.nodeNames);
    const nodes = this.cache.nodes();
    const all = nodes.length;
    const feasible = this.feasible;
    feasible.length = 0;
    if (all === 0) return 0;
    const want = fwk.filter.length === 0 ? all : numFeasibleNodesToFind(this.percentageOfNodesToScore(fwk), all);
    const start = this.nextStartNodeIndex % all;
    let processed = 0;
    for (; processed < all && feasible.length < want; processed++) {
      const ni = nodes[(start + processed) % all];
      const s = fwk.runFilterPlugins(state, pod, ni);
      if (s === null) feasible.push(ni);
      else statuses.set(ni.name, s);
    }
    this.nextStartNodeIndex = (start + processed) % all;
    return feasible.length;
  }

  /**
   * Filters only the nodes a PreFilter named (PreFilterResult.NodeNames), so a DaemonSet pod pinned to one node costs
   * one Filter run, not one per node; every other node gets the NodeAffinity mismatch, as upstream reports it.
   */
  private findAmongNamedNodes(
    fwk: Framework,
    state: CycleState,
    pod: PodInfo,
    statuses: NodeToStatus,
    names: ReadonlySet<string>,
  ): number {
    const feasible = this.feasible;
    feasible.length = 0;
    for (const name of names) {
      const ni = this.cache.get(name);
      if (ni === undefined) continue;
      const s = fwk.runFilterPlugins(state, pod, ni);
      if (s === null) feasible.push(ni);
      else statuses.set(name, s);
    }
    if (feasible.length === 0)
      for (const ni of this.cache.nodes()) if (!names.has(ni.name)) statuses.set(ni.name, NODE_NAMES_MISMATCH);
    return feasible.length;
  }

  /** Scores the feasible nodes and picks the best, breaking ties uniformly at random (reservoir sampling). */
  private prioritize(fwk: Framework, state: CycleState, pod: PodInfo, n: number): string {
    const feasible = this.feasible;
    if (fwk.score.length === 0) return feasible[Math.floor(this.random() * n)].name;
    const pre = fwk.runPreScorePlugins(state, pod, feasible);
    if (pre !== null)
      this.log.debug(
        { pod: pod.key, plugin: pre.plugin, reason: pre.message() },
        'prescore failed; choosing among feasible nodes unscored',
      );
    if (this.totals.length < n) {
      this.totals = new Float64Array(n * 2);
      this.scratch = new Float64Array(n * 2);
    }
    fwk.runScorePlugins(state, pod, feasible, n, this.totals, this.scratch);
    let best = 0;
    let ties = 1;
    for (let i = 1; i < n; i++) {
      const t = this.totals[i];
      if (t > this.totals[best]) {
        best = i;
        ties = 1;
      } else if (t === this.totals[best]) {
        ties++;
        if (this.random() * ties < 1) best = i;
      }
    }
    return feasible[best].name;
  }

  private async bindingCycle(
    fwk: Framework,
    state: CycleState,
    q: QueuedPodInfo,
    host: string,
    start: number,
    podCycle: number,
  ): Promise<void> {
    const pod = q.podInfo;
    const failed = (s: Status): void => {
      this.cache.forgetPod(pod.key);
      fwk.runReservePluginsUnreserve(state, pod, host);
      this.metrics.scheduleAttempts.inc({ result: 'error', profile: fwk.profileName });
      this.hooks.onFailure(fwk, q, s.isRejected() ? s : new Status(Code.Error, s.reasons, s.err), podCycle, undefined);
    };
    const permit = await fwk.waitOnPermit(pod);
    if (!permit.isSuccess()) return failed(permit);
    if (fwk.preBind.length > 0) {
      const s = await fwk.runPreBindPlugins(state, pod, host);
      if (s !== null) return failed(s);
    }
    await this.bindSlot();
    this.inFlightBinds++;
    let s: Status;
    try {
      s = await fwk.runBindPlugins(state, pod, host);
    } finally {
      this.inFlightBinds--;
      this.bindWaiters.shift()?.();
    }
    if (!s.isSuccess()) return failed(s);
    this.metrics.scheduleAttempts.inc({ result: 'scheduled', profile: fwk.profileName });
    this.metrics.attemptDuration.observe(
      { result: 'scheduled', profile: fwk.profileName },
      (this.clock.now() - start) / 1000,
    );
    fwk.runPostBindPlugins(state, pod, host);
    this.hooks.onBound(fwk, q, host, start);
  }
}
