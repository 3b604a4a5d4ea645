/**
 * The extension points, one small interface each, like upstream's
 * framework/interface.go: PreEnqueue, QueueSort, PreFilter, Filter,
 * PostFilter, PreScore, Score (+NormalizeScore), Reserve/Unreserve, Permit,
 * PreBind, Bind, PostBind. A plugin implements any subset; the framework
 * calls each point in the configured order.
 */
import type { LabelSelectorMatcher } from '../../api/index.js';
import type { RESTClient, EventRecorder, ListWatchScope, SharedInformerFactory } from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import type { CycleState } from './cycle_state.js';
import type { NodeInfo } from './node_info.js';
import type { AffinityTerm, PodInfo } from './pod_info.js';
import type { MaybeStatus, Status } from './status.js';

/** Every plugin has a name. */
export interface Plugin {
  readonly name: string;
}

/** A pod in the scheduling queue, like upstream's QueuedPodInfo. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was last added to the queue (ms). */
  timestamp: number;
  /** When the pod first entered the queue, for the SLI metric. */
  initialAttemptTimestamp: number;
  /** Scheduling attempts so far. */
  attempts: number;
  /** Plugins that rejected the pod in its last attempt: only events they care about requeue it. */
  unschedulablePlugins: Set<string>;
  /** The PreEnqueue plugin holding the pod back, if any. */
  gatingPlugin: string | undefined;
  /** The last failure was an Error (not a fit failure): requeue with backoff on any event. */
  lastError: boolean;
}

/** Orders the active queue: true when `a` is scheduled before `b`. */
export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** Holds a pod out of the active queue until it is ready (scheduling gates, an incomplete gang). */
export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: PodInfo): MaybeStatus;
}

/** Computes per-pod state once per cycle; Skip turns the plugin's Filter off for the cycle. */
export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: PodInfo, snapshot: Snapshot): MaybeStatus;
}

/** Decides whether the pod fits a node; null means it does. Must not allocate on success. */
export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): MaybeStatus;
}

/** Failed statuses by node name, from filtering. */
export type NodeToStatus = Map<string, Status>;

/** The result of PostFilter (preemption): a node the pod is nominated to. */
export interface PostFilterResult {
  status: Status;
  nominatedNodeName?: string;
}

/** Runs when no node fits, e.g. to preempt lower-priority pods. */
export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: PodInfo, filtered: NodeToStatus): Promise<PostFilterResult>;
}

/** Computes per-pod scoring state over the feasible nodes; Skip turns the plugin's Score off. */
export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus;
}

/** Ranks a feasible node, 0..100 after normalisation. */
export interface ScorePlugin extends Plugin {
  score(state: CycleState, pod: PodInfo, node: NodeInfo): number;
  /** Rescales `scores[0..n)` in place to 0..100 (NormalizeScore). */
  normalizeScore?(state: CycleState, pod: PodInfo, scores: Float64Array, n: number): void;
}

/** Reserve runs when the pod is assumed; Unreserve undoes it if a later stage fails. */
export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus;
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/** Allows, rejects or holds (Wait, up to `timeoutMs`) a reserved pod before binding. */
export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: PodInfo, nodeName: string): { status: MaybeStatus; timeoutMs: number };
}

/** Runs before Bind, e.g. to provision volumes. */
export interface PreBindPlugin extends Plugin {
  /** May answer at once (null) when it has nothing to do for the pod, sparing a promise on the binding path. */
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> | MaybeStatus;
}

/** Binds the pod; Skip passes to the next Bind plugin. */
export interface BindPlugin extends Plugin {
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status>;
}

/** Informational, after a successful bind. */
export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/**
 * What changed in the cluster, like upstream's EventResource: the built-in kinds, or any other resource as
 * "<resource>.<version>.<group>" (e.g. "podgroups.v1alpha1.scheduling.x-k8s.io"), whose informer the scheduler
 * takes from the informer factory, as upstream does with its dynamic informers.
 */
export type ClusterEventResource = 'Node' | 'AssignedPod' | 'UnscheduledPod' | `${string}.${string}.${string}`;

/** Action bits, like upstream's ActionType. */
export const ActionType = {
  Add: 1,
  Delete: 2,
  UpdateNodeAllocatable: 4,
  UpdateNodeLabel: 8,
  UpdateNodeTaint: 16,
  UpdateNodeCondition: 32,
  /** Any other update. */
  Update: 64,
  All: 127,
} as const;

/** One cluster event. */
export interface ClusterEvent {
  resource: ClusterEventResource;
  action: number;
}

/** Decides whether an event may make a pod schedulable, like a QueueingHint; absent means yes. */
export type QueueingHint = (pod: PodInfo, oldObj: unknown, newObj: unknown) => boolean;

/** An event a plugin cares about, with an optional hint. */
export interface ClusterEventWithHint {
  event: ClusterEvent;
  hint?: QueueingHint;
}

/** Plugins that reject pods say which events may change their mind, like upstream's EnqueueExtensions. */
export interface EnqueueExtensions {
  eventsToRegister(): ClusterEventWithHint[];
}

/** Counts of pods matching one selector, by topology domain and by node. */
export interface MatchCounter {
  readonly topologyKey: string;
  /** domain value -> matching pods. */
  readonly byDomain: ReadonlyMap<string, number>;
  /** node name -> matching pods. */
  readonly byNode: ReadonlyMap<string, number>;
  /** All matching pods. */
  readonly total: number;
}

/** Existing pods' equal affinity terms, merged, with the domains their pods occupy. */
export interface ExistingTerms {
  term: AffinityTerm;
  kind: 'requiredAffinity' | 'requiredAntiAffinity' | 'preferredAffinity' | 'preferredAntiAffinity';
  /** domain value -> sum of weights of the pods carrying the term there. */
  readonly byDomain: ReadonlyMap<string, number>;
}

/** The scheduler's view of the cluster for one cycle, kept incrementally by the cache. */
export interface Snapshot {
  /** Schedulable-candidate nodes (those with a Node object), in a stable order. */
  nodes(): readonly NodeInfo[];
  get(name: string): NodeInfo | undefined;
  /** Pods matching `selector` in `namespaces` (null: all) counted by `topologyKey` domain; kept incrementally. */
  matchCounter(
    namespaces: ReadonlySet<string> | null,
    selector: LabelSelectorMatcher,
    topologyKey: string,
    signature: string,
  ): MatchCounter;
  /** Aggregated terms of existing pods, for the symmetric side of inter-pod affinity. */
  existingTerms(): Iterable<ExistingTerms>;
  /** domain value -> node count for a topology key. */
  domains(topologyKey: string): ReadonlyMap<string, number>;
}

/** A pod held at Permit. */
export interface WaitingPod {
  readonly pod: PodInfo;
  readonly nodeName: string;
  /** Plugins still to allow it. */
  pendingPlugins(): string[];
  allow(plugin: string): void;
  reject(plugin: string, message: string): void;
}

/** What plugins get from the framework, like upstream's framework.Handle. */
export interface Handle {
  readonly client: RESTClient;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  snapshot(): Snapshot;
  /** Every pod waiting at Permit. */
  waitingPods(): Iterable<WaitingPod>;
  getWaitingPod(uid: string): WaitingPod | undefined;
  /** Moves pods from backoff or unschedulable into the active queue, like upstream's Activate. */
  activate(pods: PodInfo[]): void;
  /** Runs the Filter plugins (for preemption's what-ifs). */
  runFilterPlugins(state: CycleState, pod: PodInfo, node: NodeInfo): MaybeStatus;
  /** Runs the PreFilter plugins into a fresh state (for preemption's what-ifs). */
  runPreFilterPlugins(state: CycleState, pod: PodInfo, snapshot: Snapshot): MaybeStatus;
  /**
   * The informers the scheduler runs, like upstream's Handle.SharedInformerFactory(): a plugin asks for the
   * informers (and adds the indexes) it reads when it is built, and the scheduler starts them with its own.
   * The scheduler's pods are those of SCHEDULER_POD_SCOPE.
   */
  informerFactory(): SharedInformerFactory;
}

/** The scope of the scheduler's pod informer: terminal pods hold no resources and need no scheduling, as upstream's informer selector says. */
export const SCHEDULER_POD_SCOPE: Readonly<ListWatchScope> = Object.freeze({
  fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed',
});

/** Builds a plugin from its args (pluginConfig) and the handle. */
export type PluginFactory = (args: Record<string, unknown>, handle: Handle) => Plugin;
