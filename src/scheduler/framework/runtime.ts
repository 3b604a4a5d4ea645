/**
 * The framework runtime for one profile, like upstream's frameworkImpl: it
 * builds the enabled plugins once and runs each extension point in order.
 * Filter and Score are the hot paths; they allocate nothing per node.
 */
import type { Clock } from '../../clock/index.js';
import type { CycleState } from './cycle_state.js';
import type {
  BindPlugin,
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  Handle,
  NodeToStatus,
  PermitPlugin,
  Plugin,
  PluginFactory,
  PostBindPlugin,
  PostFilterPlugin,
  PostFilterResult,
  PreBindPlugin,
  PreEnqueuePlugin,
  PreFilterPlugin,
  PreScorePlugin,
  QueueSortPlugin,
  ReservePlugin,
  ScorePlugin,
  Snapshot,
} from './interface.js';
import type { NodeInfo } from './node_info.js';
import type { PodInfo } from './pod_info.js';
import { asStatus, Code, newStatus, SUCCESS, type MaybeStatus, type Status } from './status.js';
import { WaitingPodImpl } from './waiting_pods.js';

/** The plugins of one extension point, resolved from the configuration. */
export interface ResolvedPlugins {
  /** Plugin name -> args. */
  args: Map<string, Record<string, unknown>>;
  /** Names per extension point, in order; score entries carry weights. */
  points: Record<ExtensionPoint, string[]>;
  scoreWeights: Map<string, number>;
}

/** The extension point names, as in KubeSchedulerConfiguration's `plugins`. */
export const EXTENSION_POINTS = [
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const;
/** One extension point name. */
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

/** Which method marks a plugin as implementing each point. */
export const POINT_METHOD: Record<ExtensionPoint, string> = {
  preEnqueue: 'preEnqueue',
  queueSort: 'less',
  preFilter: 'preFilter',
  filter: 'filter',
  postFilter: 'postFilter',
  preScore: 'preScore',
  score: 'score',
  reserve: 'reserve',
  permit: 'permit',
  preBind: 'preBind',
  bind: 'bind',
  postBind: 'postBind',
};

/** A running profile. */
export class Framework {
  readonly plugins = new Map<string, Plugin>();
  readonly queueSort: QueueSortPlugin;
  readonly preEnqueue: PreEnqueuePlugin[];
  readonly preFilter: PreFilterPlugin[];
  readonly filter: FilterPlugin[];
  readonly postFilter: PostFilterPlugin[];
  readonly preScore: PreScorePlugin[];
  readonly score: { plugin: ScorePlugin; weight: number }[];
  readonly reserve: ReservePlugin[];
  readonly permit: PermitPlugin[];
  readonly preBind: PreBindPlugin[];
  readonly bind: BindPlugin[];
  readonly postBind: PostBindPlugin[];
  /** Events each plugin registered, for the queue. */
  readonly events = new Map<string, ClusterEventWithHint[]>();
  readonly waiting = new Map<string, WaitingPodImpl>();

  constructor(
    readonly profileName: string,
    resolved: ResolvedPlugins,
    registry: ReadonlyMap<string, PluginFactory>,
    handle: Handle,
    private readonly clock: Clock,
  ) {
    const get = (name: string): Plugin => {
      let p = this.plugins.get(name);
      if (p === undefined) {
        const f = registry.get(name);
        if (f === undefined) throw new Error(`plugin "${name}" does not exist`);
        p = f(resolved.args.get(name) ?? {}, handle);
        this.plugins.set(name, p);
      }
      return p;
    };
    const at = <T>(point: ExtensionPoint): T[] =>
      resolved.points[point].map((n) => {
        const p = get(n) as unknown as Record<string, unknown>;
        if (typeof p[POINT_METHOD[point]] !== 'function') throw new Error(`plugin "${n}" does not extend ${point}`);
        return p as T;
      });
    const sorts = at<QueueSortPlugin>('queueSort');
    if (sorts.length !== 1)
      throw new Error(`profile ${profileName}: exactly one queueSort plugin is required, got ${sorts.length}`);
    this.queueSort = sorts[0];
    this.preEnqueue = at('preEnqueue');
    this.preFilter = at('preFilter');
    this.filter = at('filter');
    this.postFilter = at('postFilter');
    this.preScore = at('preScore');
    this.score = at<ScorePlugin>('score').map((plugin) => ({
      plugin,
      weight: resolved.scoreWeights.get(plugin.name) ?? 1,
    }));
    this.reserve = at('reserve');
    this.permit = at('permit');
    this.preBind = at('preBind');
    this.bind = at('bind');
    this.postBind = at('postBind');
    if (this.bind.length === 0) throw new Error(`profile ${profileName}: at least one bind plugin is required`);
    for (const p of this.plugins.values()) {
      const ee = p as Partial<EnqueueExtensions>;
      if (typeof ee.eventsToRegister === 'function') this.events.set(p.name, ee.eventsToRegister());
    }
  }

  /** Runs PreFilter; Skip takes the plugin's Filter out of this cycle. */
  runPreFilterPlugins(state: CycleState, pod: PodInfo, snapshot: Snapshot): MaybeStatus {
    for (const p of this.preFilter) {
      let s: MaybeStatus;
      try {
        s = p.preFilter(state, pod, snapshot);
      } catch (err) {
        s = asStatus(err);
      }
      if (s === null || s.code === Code.Success) continue;
      if (s.code === Code.Skip) {
        state.skipFilter.add(p.name);
        continue;
      }
      return s.withPlugin(p.name);
    }
    state.filters =
      state.skipFilter.size === 0 ? this.filter : this.filter.filter((f) => !state.skipFilter.has(f.name));
    return null;
  }

  /** Runs Filter on one node; the first failure wins, as upstream. */
  runFilterPlugins(state: CycleState, pod: PodInfo, node: NodeInfo): MaybeStatus {
    const fs = state.filters ?? this.filter;
    for (let i = 0; i < fs.length; i++) {
      const s = fs[i].filter(state, pod, node);
      if (s !== null && s.code !== Code.Success) return s.withPlugin(fs[i].name);
    }
    return null;
  }

  /** Runs PostFilter until one succeeds or says Unresolvable. */
  async runPostFilterPlugins(state: CycleState, pod: PodInfo, filtered: NodeToStatus): Promise<PostFilterResult> {
    let last: PostFilterResult = { status: newStatus(Code.Unschedulable) };
    for (const p of this.postFilter) {
      let r: PostFilterResult;
      try {
        r = await p.postFilter(state, pod, filtered);
      } catch (err) {
        return { status: asStatus(err).withPlugin(p.name) };
      }
      if (r.status.isSuccess()) return r;
      if (r.status.code === Code.UnschedulableAndUnresolvable || r.status.code === Code.Error)
        return { status: r.status.withPlugin(p.name) };
      last = r;
    }
    return last;
  }

  /** Runs PreScore; Skip turns a plugin's Score off for this cycle. */
  runPreScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    for (const p of this.preScore) {
      const s = p.preScore(state, pod, nodes);
      if (s === null || s.code === Code.Success) continue;
      if (s.code === Code.Skip) {
        state.skipScore.add(p.name);
        continue;
      }
      return s.withPlugin(p.name);
    }
    return null;
  }

  /** Adds each Score plugin's normalised, weighted score of nodes[0..n) into `totals`; `scratch` is reused. */
  runScorePlugins(
    state: CycleState,
    pod: PodInfo,
    nodes: readonly NodeInfo[],
    n: number,
    totals: Float64Array,
    scratch: Float64Array,
  ): void {
    totals.fill(0, 0, n);
    for (const { plugin, weight } of this.score) {
      if (state.skipScore.has(plugin.name)) continue;
      for (let i = 0; i < n; i++) scratch[i] = plugin.score(state, pod, nodes[i]);
      plugin.normalizeScore?.(state, pod, scratch, n);
      for (let i = 0; i < n; i++) totals[i] += scratch[i] * weight;
    }
  }

  /** Runs Reserve in order; on failure the caller runs Unreserve. */
  runReservePluginsReserve(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus {
    for (const p of this.reserve) {
      let s: MaybeStatus;
      try {
        s = p.reserve(state, pod, nodeName);
      } catch (err) {
        s = asStatus(err);
      }
      if (s !== null && !s.isSuccess()) return s.withPlugin(p.name);
    }
    return null;
  }

  /** Runs Unreserve in reverse order; never fails. */
  runReservePluginsUnreserve(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (let i = this.reserve.length - 1; i >= 0; i--) {
      try {
        this.reserve[i].unreserve(state, pod, nodeName);
      } catch {
        // Unreserve must not fail; a throwing plugin cannot stop the others from releasing.
      }
    }
  }

  /** Runs Permit: a rejection returns it; Waits register the pod as waiting (Code.Wait). */
  runPermitPlugins(state: CycleState, pod: PodInfo, nodeName: string): Status {
    const waits = new Map<string, number>();
    for (const p of this.permit) {
      let r: { status: MaybeStatus; timeoutMs: number };
      try {
        r = p.permit(state, pod, nodeName);
      } catch (err) {
        return asStatus(err).withPlugin(p.name);
      }
      const s = r.status;
      if (s === null || s.isSuccess()) continue;
      if (s.code === Code.Wait) {
        waits.set(p.name, Math.min(r.timeoutMs, 15 * 60_000));
        continue;
      }
      return s.withPlugin(p.name);
    }
    if (waits.size === 0) return SUCCESS;
    this.waiting.set(pod.uid, new WaitingPodImpl(pod, nodeName, waits, this.clock, () => this.waiting.delete(pod.uid)));
    return newStatus(Code.Wait);
  }

  /** Waits for a pod held at Permit; Success at once when it is not waiting. */
  async waitOnPermit(pod: PodInfo): Promise<Status> {
    const w = this.waiting.get(pod.uid);
    return w === undefined ? SUCCESS : w.result;
  }

  /** Runs PreBind in order. */
  async runPreBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    for (const p of this.preBind) {
      let s: MaybeStatus;
      try {
        const r = p.preBind(state, pod, nodeName);
        s = r instanceof Promise ? await r.catch(asStatus) : r;
      } catch (err) {
        s = asStatus(err);
      }
      if (s !== null && !s.isSuccess()) return s.withPlugin(p.name);
    }
    return null;
  }

  /** Runs Bind plugins until one does not Skip. */
  async runBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status> {
    for (const p of this.bind) {
      const s = await p.bind(state, pod, nodeName).catch(asStatus);
      if (s.code === Code.Skip) continue;
      return s.isSuccess() ? s : s.withPlugin(p.name);
    }
    return newStatus(Code.Error, 'all bind plugins skipped');
  }

  /** Runs PostBind (informational). */
  runPostBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (const p of this.postBind) {
      try {
        p.postBind(state, pod, nodeName);
      } catch {
        // Informational only.
      }
    }
  }
}
