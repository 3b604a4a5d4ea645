/**
 * The Scheduler, like upstream's pkg/scheduler: informers feed the cache and
 * the queue; one loop pops pods and runs their scheduling cycles; binding
 * cycles run concurrently up to a bound. Failures requeue the pod, set
 * PodScheduled=False and record FailedScheduling; a bind records Scheduled.
 */
import {
  RESOURCES,
  SharedInformerFactory,
  type ClientLogger,
  type EventRecorder,
  type RESTClient,
  type SharedInformer,
  stripManagedFields,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';
import { SchedulerCache } from './cache/cache.js';
import { CycleState } from './framework/cycle_state.js';
import {
  SCHEDULER_POD_SCOPE,
  type Handle,
  type PluginFactory,
  type QueuedPodInfo,
  type Snapshot,
  type WaitingPod,
} from './framework/interface.js';
import type { NodeInfo } from './framework/node_info.js';
import type { PodInfo } from './framework/pod_info.js';
import { Framework, type ResolvedPlugins } from './framework/runtime.js';
import { Code, Status } from './framework/status.js';
import type { Node, Pod } from '../api/index.js';
import { SchedulerMetrics } from './metrics/metrics.js';
import { SchedulingQueue } from './queue/scheduling_queue.js';
import { fitErrorMessage, ScheduleOne, type FitError } from './schedule_one.js';
import { registerEventHandlers } from './event_handlers.js';
import { PodConditionUpdater } from './pod_condition.js';

/** One profile: a schedulerName and its plugins. */
export interface ProfileSpec {
  schedulerName: string;
  plugins: ResolvedPlugins;
  /** 0 means adaptive; overrides the global value when set. */
  percentageOfNodesToScore?: number;
}

/** Everything the scheduler is built from. */
export interface SchedulerOptions {
  client: RESTClient;
  /** Where Events go (upstream gives Events their own client so they never eat the binding QPS). */
  recorder: EventRecorder;
  clock: Clock;
  logger: ClientLogger;
  profiles: ProfileSpec[];
  registry: ReadonlyMap<string, PluginFactory>;
  /** 0: adaptive, like upstream's default. */
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  podMaxInUnschedulablePodsDurationMs?: number;
  /** Concurrent pods/binding calls (default 64). */
  maxInFlightBindings?: number;
  random?: () => number;
}

/** A running scheduler. */
export class Scheduler {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  readonly metrics: SchedulerMetrics;
  readonly profiles = new Map<string, Framework>();
  readonly podInformer: SharedInformer<Pod>;
  readonly nodeInformer: SharedInformer<Node>;
  /** The scheduler's informers and those its plugins asked for. */
  readonly informers: SharedInformerFactory;
  private readonly one: ScheduleOne;
  private readonly conditions: PodConditionUpdater;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly log: ClientLogger;
  /** Counters for tests and the bench. */
  readonly stats = { bound: 0, failed: 0 };

  constructor(private readonly opts: SchedulerOptions) {
    const { client, clock } = opts;
    this.log = opts.logger;
    // Like kube-scheduler's informer factory: cached objects drop metadata.managedFields, which no plugin reads.
    this.informers = new SharedInformerFactory(client, { clock, logger: opts.logger, transform: stripManagedFields });
    // Nodes first, then what the plugins ask for, then pods: informers start and sync in that order.
    this.nodeInformer = this.informers.informerFor<Node>(RESOURCES.nodes);
    const handle: Handle = {
      client,
      clock,
      recorder: opts.recorder,
      snapshot: (): Snapshot => this.cache,
      waitingPods: () => this.allWaiting(),
      getWaitingPod: (uid) => {
        for (const f of this.profiles.values()) {
          const w = f.waiting.get(uid);
          if (w !== undefined) return w;
        }
        return undefined;
      },
      activate: (pods) => this.queue.activate(pods),
      runFilterPlugins: (state, pod, node) => this.frameworkFor(pod)!.runFilterPlugins(state, pod, node),
      runPreFilterPlugins: (state, pod, snapshot) => this.frameworkFor(pod)!.runPreFilterPlugins(state, pod, snapshot),
      informerFactory: () => this.informers,
    };
    for (const p of opts.profiles)
      this.profiles.set(p.schedulerName, new Framework(p.schedulerName, p.plugins, opts.registry, handle, clock));
    this.podInformer = this.informers.informerFor<Pod>(RESOURCES.pods, SCHEDULER_POD_SCOPE);
    const first = [...this.profiles.values()][0];
    if (first === undefined) throw new Error('at least one profile is required');
    this.queue = new SchedulingQueue({
      clock,
      less: (a, b) => first.queueSort.less(a, b),
      preEnqueue: (pod) => this.frameworkFor(pod)?.preEnqueue ?? [],
      events: (pod) => this.frameworkFor(pod)?.events ?? new Map(),
      podInitialBackoffMs: (opts.podInitialBackoffSeconds ?? 1) * 1000,
      podMaxBackoffMs: (opts.podMaxBackoffSeconds ?? 10) * 1000,
      ...(opts.podMaxInUnschedulablePodsDurationMs !== undefined
        ? { podMaxInUnschedulablePodsDurationMs: opts.podMaxInUnschedulablePodsDurationMs }
        : {}),
    });
    this.metrics = new SchedulerMetrics(() => this.queue.pending());
    this.conditions = new PodConditionUpdater(client, clock, opts.logger);
    const pct = opts.percentageOfNodesToScore ?? 0;
    const pctByProfile = new Map(opts.profiles.map((p) => [p.schedulerName, p.percentageOfNodesToScore ?? pct]));
    this.one = new ScheduleOne(
      this.cache,
      this.queue,
      clock,
      opts.logger,
      this.metrics,
      {
        onFailure: (f, q, s, c, fit, nominated) => this.onFailure(f, q, s, c, fit, nominated),
        onBound: (f, q, host) => this.onBound(f, q, host),
      },
      (f) => pctByProfile.get(f.profileName) ?? pct,
      opts.maxInFlightBindings ?? 64,
      opts.random,
    );
    registerEventHandlers(this);
  }

  /** The profile that schedules `pod`, or undefined when another scheduler is responsible. */
  frameworkFor(pod: PodInfo): Framework | undefined {
    return this.profiles.get(pod.pod.spec?.schedulerName ?? 'default-scheduler');
  }

  /** Starts the informers; resolves when their caches are synced (false if aborted). */
  async startInformers(signal?: AbortSignal): Promise<boolean> {
    this.informers.start();
    return this.informers.waitForCacheSync(signal);
  }

  /** Starts the scheduling loop (after startInformers). */
  run(): void {
    this.queue.run();
    this.running = this.loop();
  }

  /** Stops scheduling and the informers; in-flight bindings finish first. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.close();
    await this.running;
    for (const f of this.profiles.values()) for (const w of [...f.waiting.values()]) w.reject('', 'scheduler stopping');
    await Promise.allSettled([...this.one.bindingCycles]);
    await this.informers.shutdown();
  }

  /** Resolves when no binding cycle is running (tests). */
  async idle(): Promise<void> {
    while (this.one.bindingCycles.size > 0) await Promise.allSettled([...this.one.bindingCycles]);
  }

  private *allWaiting(): Iterable<WaitingPod> {
    for (const f of this.profiles.values()) yield* f.waiting.values();
  }

  private async loop(): Promise<void> {
    let sliceStart = performance.now();
    while (!this.stopped) {
      const q = this.queue.tryPop();
      if (q === undefined) {
        await this.queue.waitForPod();
        sliceStart = performance.now();
        continue;
      }
      const fwk = this.frameworkFor(q.podInfo);
      const key = q.podInfo.key;
      if (fwk === undefined || this.cache.hasPod(key) || q.podInfo.pod.metadata?.deletionTimestamp !== undefined) {
        this.queue.done(key);
        continue;
      }
      try {
        const p = this.one.scheduleOne(fwk, q);
        if (p !== undefined) await p;
      } catch (err) {
        this.log.warn({ pod: key, err: String(err) }, 'scheduling cycle failed');
        this.onFailure(fwk, q, new Status(Code.Error, [String(err)], err), this.queue.cycle, undefined);
      }
      await this.one.bindSlot();
      // Yield to the event loop every few ms so watch events and binding responses are handled promptly.
      if (performance.now() - sliceStart >= 4) {
        await new Promise<void>((r) => setImmediate(r));
        sliceStart = performance.now();
      }
    }
  }

  private onBound(fwk: Framework, q: QueuedPodInfo, host: string): void {
    this.stats.bound++;
    this.queue.done(q.podInfo.key);
    this.metrics.podSchedulingSLI.observe(
      { attempts: String(q.attempts) },
      (this.opts.clock.now() - q.initialAttemptTimestamp) / 1000,
    );
    this.opts.recorder.event(
      asPodRef(q.podInfo.pod),
      'Normal',
      'Scheduled',
      `Successfully assigned ${q.podInfo.key} to ${host}`,
    );
    void fwk;
  }

  private onFailure(
    fwk: Framework,
    q: QueuedPodInfo,
    s: Status,
    podCycle: number,
    fit: FitError | undefined,
    nominated?: string,
  ): void {
    this.stats.failed++;
    const pod = q.podInfo;
    q.lastError = s.code === Code.Error;
    q.unschedulablePlugins.clear();
    if (fit !== undefined) {
      if (fit.preFilter !== undefined && fit.preFilter.plugin !== '') q.unschedulablePlugins.add(fit.preFilter.plugin);
      for (const st of fit.statuses.values()) if (st.plugin !== '') q.unschedulablePlugins.add(st.plugin);
    } else if (s.plugin !== '') q.unschedulablePlugins.add(s.plugin);
    // A pod deleted or bound meanwhile is not requeued.
    const cur = this.podInformer.indexer.getByKey(pod.key);
    if (cur === undefined || (cur.spec?.nodeName ?? '') !== '' || cur.metadata?.uid !== pod.uid) {
      this.queue.done(pod.key);
      return;
    }
    this.queue.addUnschedulableIfNotPresent(q, podCycle);
    const message = fit !== undefined ? fitErrorMessage(fit) : s.message() || 'scheduling failed';
    const reason = s.code === Code.Error ? 'SchedulerError' : 'Unschedulable';
    this.log.debug({ pod: pod.key, profile: fwk.profileName, reason, message }, 'unable to schedule pod');
    this.opts.recorder.event(asPodRef(cur), 'Warning', 'FailedScheduling', message);
    this.conditions.setUnschedulable(cur, reason, message, nominated);
  }
}

/** A pod with kind and apiVersion, as Events need (list items lack them). */
function asPodRef(p: Pod): Pod {
  return p.kind === 'Pod' ? p : { ...p, kind: 'Pod', apiVersion: 'v1' };
}

/** Re-exported for plugins and tests. */
export type { NodeInfo, CycleState };
