/**
 * The pods of one hollow kubelet, like upstream's pod workers plus status
 * manager, with containers simulated:
 * - a new pod starts after a sampled latency: pods/status becomes Running
 *   with an IP from the node's CIDR;
 * - a pod a Job owns completes after the configured run time (Succeeded, or
 *   Failed when its kscale.io/simulated-exit-code annotation is non-zero);
 * - a pod with a deletionTimestamp has its containers terminated, then is
 *   deleted with gracePeriodSeconds=0 and a uid precondition, as the status
 *   manager does once a pod can be deleted;
 * - a running pod whose Ready condition someone else set to False (the node
 *   lifecycle controller marks every pod of a NotReady node so) gets this
 *   kubelet's status back, as the status manager reconciles a status the API
 *   server holds differently from its own (needsReconcile); without it a
 *   node's brief NotReady left its pods unready for good.
 * Work on one pod is serialized; a killed node pauses all of it.
 */
import { isConflictError, isNotFoundError, type ClientLogger } from '../client/index.js';
import type { Clock } from '../clock/index.js';
import type { LatencySampler } from './latency.js';
import type { PodIPAllocator } from './pod_ips.js';
import type { FleetMetrics } from './fleet_metrics.js';
import type { PodStartStats } from './pod_start_stats.js';
import { isTerminal, ownedByJob, runningPatch, simulatedExitCode, terminatedPatch, type PodRun } from './pod_status.js';
import type { TaskHandle, TimerQueue } from './timer_queue.js';
import type { Pod } from '../api/index.js';

/** The pod calls a kubelet makes. */
export interface PodAPI {
  patchPodStatus(namespace: string, name: string, patch: unknown): Promise<unknown>;
  /** DELETE with gracePeriodSeconds=0 and a uid precondition. */
  deletePod(namespace: string, name: string, uid: string): Promise<unknown>;
}

type Phase = 'starting' | 'running' | 'terminating' | 'done';

interface PodState {
  uid: string;
  namespace: string;
  name: string;
  phase: Phase;
  pod: Pod;
  run?: PodRun;
  timer?: TaskHandle;
  chain: Promise<void>;
  attempts: number;
  /** The resourceVersion this kubelet's last status write returned, when the server sent one. */
  statusRV?: number;
  /** A status reconcile is queued or running. */
  reconciling?: boolean;
}

/** The resourceVersion of an object the API returned, when it has one. */
function rvOf(obj: unknown): number | undefined {
  const rv = Number((obj as Pod | undefined)?.metadata?.resourceVersion);
  return Number.isFinite(rv) && rv > 0 ? rv : undefined;
}

/** Whether a running pod's Ready condition was set to False by someone else after this kubelet's last status write. */
function readyTakenAway(st: PodState, pod: Pod): boolean {
  if (pod.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'False') return false;
  // An event from before our own write (the watch lags) is not a change to undo.
  const rv = rvOf(pod);
  return st.statusRV === undefined || rv === undefined || rv > st.statusRV;
}

/** What a kubelet's pod workers need. */
export interface PodWorkersOptions {
  api: PodAPI;
  ips: PodIPAllocator;
  queue: TimerQueue;
  clock: Clock;
  hostIP: string;
  startupLatency: LatencySampler;
  jobPodRuntimeMs: number;
  logger: ClientLogger;
  /** Where each start's timings go (the fleet shares one). */
  startStats?: PodStartStats;
  /** The fleet's /metrics (kubelet_pod_start_sli_duration_seconds). */
  metrics?: FleetMetrics;
}

/** Simulates the containers of the pods bound to one node. */
export class PodWorkers {
  private readonly pods = new Map<string, PodState>();
  private paused = false;
  /** Counters for the fleet's stats. */
  readonly stats = { started: 0, completed: 0, deleted: 0, errors: 0, reconciled: 0 };

  constructor(private readonly o: PodWorkersOptions) {}

  /** Pods known (any phase). */
  /** Pods whose containers run (kubelet_running_pods). */
  get running(): number {
    let n = 0;
    for (const st of this.pods.values()) if (st.phase === 'running') n++;
    return n;
  }

  get size(): number {
    return this.pods.size;
  }

  /** The pod as this kubelet last saw it, while it knows it. */
  get(namespace: string, name: string): Pod | undefined {
    return this.pods.get(`${namespace}/${name}`)?.pod;
  }

  /** A pod was added or updated by the watch. */
  sync(pod: Pod): void {
    if (this.paused) return;
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const uid = pod.metadata?.uid ?? '';
    let st = this.pods.get(key);
    if (st !== undefined && st.uid !== uid) {
      this.drop(key, st);
      st = undefined;
    }
    if (st === undefined) {
      st = {
        uid,
        namespace: pod.metadata?.namespace ?? '',
        name: pod.metadata?.name ?? '',
        phase: 'starting',
        pod,
        chain: Promise.resolve(),
        attempts: 0,
      };
      this.pods.set(key, st);
      if (!this.adopt(st, pod)) this.scheduleStart(st, this.o.startupLatency());
    }
    st.pod = pod;
    if (pod.metadata?.deletionTimestamp != null && st.phase !== 'terminating') this.terminate(st);
    else if (isTerminal(pod) && st.phase !== 'done' && st.phase !== 'terminating') this.finish(st);
    else if (st.phase === 'running' && readyTakenAway(st, pod)) this.reconcile(st);
  }

  /** The pod is gone from the API. */
  forget(pod: Pod): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const st = this.pods.get(key);
    if (st !== undefined && st.uid === (pod.metadata?.uid ?? '')) this.drop(key, st);
  }

  /** Stops all pod work, as if the node died: timers cancelled, state dropped. */
  pause(): void {
    this.paused = true;
    for (const [key, st] of this.pods) this.drop(key, st);
  }

  /** Resumes after `pause`, re-reading the pods the watch has. */
  resume(pods: Iterable<Pod>): void {
    this.paused = false;
    for (const p of pods) this.sync(p);
  }

  /** Takes over a pod another run of this kubelet already started (fleet restart, revive). */
  private adopt(st: PodState, pod: Pod): boolean {
    const s = pod.status;
    if (isTerminal(pod)) {
      st.phase = 'done';
      return true;
    }
    if (s?.phase !== 'Running' || s.podIP === undefined) return false;
    this.o.ips.claim(s.podIP);
    const started = Date.parse(s.containerStatuses?.[0]?.state?.running?.startedAt ?? '') || this.o.clock.now();
    st.run = {
      hostIP: this.o.hostIP,
      podIP: s.podIP,
      startTime: Date.parse(s.startTime ?? '') || started,
      startedAt: started,
    };
    st.phase = 'running';
    if (ownedByJob(pod)) this.scheduleCompletion(st, started + this.o.jobPodRuntimeMs - this.o.clock.now());
    return true;
  }

  private scheduleStart(st: PodState, delayMs: number): void {
    const startTime = this.o.clock.now();
    const dueAt = startTime + delayMs;
    st.timer = this.o.queue.after(delayMs, () =>
      this.enqueue(
        st,
        async () => {
          if (st.phase !== 'starting') return;
          const podIP = st.run?.podIP ?? this.o.ips.allocate();
          const sentAt = this.o.clock.now();
          st.run = { hostIP: this.o.hostIP, podIP, startTime, startedAt: sentAt };
          st.statusRV = rvOf(await this.o.api.patchPodStatus(st.namespace, st.name, runningPatch(st.pod, st.run)));
          this.o.startStats?.record(sentAt - dueAt, this.o.clock.now() - sentAt);
          this.o.metrics?.podStarted(st.pod.metadata?.creationTimestamp ?? undefined, this.o.clock.now());
          st.phase = 'running';
          st.attempts = 0;
          this.stats.started++;
          if (ownedByJob(st.pod)) this.scheduleCompletion(st, this.o.jobPodRuntimeMs);
        },
        () => this.scheduleStart(st, this.backoff(st)),
      ),
    );
  }

  private scheduleCompletion(st: PodState, delayMs: number): void {
    st.timer = this.o.queue.after(Math.max(0, delayMs), () =>
      this.enqueue(
        st,
        async () => {
          if (st.phase !== 'running' || st.run === undefined) return;
          await this.o.api.patchPodStatus(
            st.namespace,
            st.name,
            terminatedPatch(st.pod, st.run, this.o.clock.now(), simulatedExitCode(st.pod)),
          );
          this.stats.completed++;
          this.finish(st);
        },
        () => this.scheduleCompletion(st, this.backoff(st)),
      ),
    );
  }

  /** Writes the running status again (its Ready condition was taken away); one at a time per pod. */
  private reconcile(st: PodState): void {
    if (st.reconciling === true) return;
    st.reconciling = true;
    this.enqueue(
      st,
      async () => {
        try {
          if (st.phase !== 'running' || st.run === undefined) return;
          st.statusRV = rvOf(await this.o.api.patchPodStatus(st.namespace, st.name, runningPatch(st.pod, st.run)));
          this.stats.reconciled++;
        } finally {
          st.reconciling = false;
        }
      },
      () => void this.o.queue.after(this.backoff(st), () => this.reconcile(st)),
    );
  }

  /** Graceful deletion: containers terminated (if they ran), then the final DELETE. */
  private terminate(st: PodState): void {
    const wasRunning = st.phase === 'running' && st.run !== undefined;
    st.timer?.cancel();
    st.phase = 'terminating';
    const attempt = (): void =>
      this.enqueue(
        st,
        async () => {
          if (wasRunning && !isTerminal(st.pod))
            await this.o.api.patchPodStatus(
              st.namespace,
              st.name,
              terminatedPatch(st.pod, st.run!, this.o.clock.now(), 0),
            );
          await this.o.api.deletePod(st.namespace, st.name, st.uid);
          this.stats.deleted++;
        },
        () => (st.timer = this.o.queue.after(this.backoff(st), attempt)),
      );
    attempt();
  }

  private finish(st: PodState): void {
    st.timer?.cancel();
    st.phase = 'done';
    if (st.run !== undefined) this.o.ips.release(st.run.podIP);
  }

  private drop(key: string, st: PodState): void {
    st.timer?.cancel();
    if (st.run !== undefined && st.phase !== 'done') this.o.ips.release(st.run.podIP);
    st.phase = 'done';
    this.pods.delete(key);
  }

  /** Runs `fn` after the pod's previous work; a failure is retried by `retry` unless the pod is gone. */
  private enqueue(st: PodState, fn: () => Promise<void>, retry: () => void): void {
    st.chain = st.chain.then(async () => {
      if (this.paused || this.pods.get(`${st.namespace}/${st.name}`) !== st) return;
      try {
        await fn();
      } catch (err) {
        // 404: the pod is gone; 409: the uid precondition failed, so it is another pod now.
        if (isNotFoundError(err) || isConflictError(err)) return;
        this.stats.errors++;
        this.o.logger.warn({ pod: `${st.namespace}/${st.name}`, err: String(err) }, 'pod worker failed; retrying');
        if (!this.paused && this.pods.get(`${st.namespace}/${st.name}`) === st) retry();
      }
    });
  }

  private backoff(st: PodState): number {
    st.attempts++;
    return Math.min(10_000, 500 * 2 ** Math.min(st.attempts, 5));
  }
}
