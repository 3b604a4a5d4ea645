/**
 * The scheduling queue, like upstream's PriorityQueue (backend/queue):
 *  - activeQ, a heap ordered by the QueueSort plugin, from which pods are popped;
 *  - backoffQ, pods waiting out their backoff (1 s doubling to 10 s by default);
 *  - unschedulablePods, pods that did not fit, moved back only by cluster
 *    events that a rejecting plugin registered for (with its hint), or after
 *    podMaxInUnschedulablePodsDuration (5 min) as a backstop;
 *  - gated pods, held by a PreEnqueue plugin until an event it registered for.
 * An event seen while a pod is being scheduled sends that pod to backoff
 * rather than unschedulable when it fails (upstream's moveRequestCycle).
 */
import type { Clock, Timer } from '../../clock/index.js';
import type { ClusterEvent, ClusterEventWithHint, PreEnqueuePlugin, QueuedPodInfo } from '../framework/interface.js';
import type { PodInfo } from '../framework/pod_info.js';
import { KeyedHeap } from './heap.js';

/** Queue knobs, with upstream's defaults. */
export interface SchedulingQueueOptions {
  clock: Clock;
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  /** PreEnqueue plugins of the pod's profile. */
  preEnqueue: (pod: PodInfo) => readonly PreEnqueuePlugin[];
  /** Events each plugin registered for, by plugin name. */
  events: (pod: PodInfo) => ReadonlyMap<string, ClusterEventWithHint[]>;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  podMaxInUnschedulablePodsDurationMs?: number;
}

/** Counts by sub-queue, for scheduler_pending_pods. */
export interface PendingCounts {
  active: number;
  backoff: number;
  unschedulable: number;
  gated: number;
}

const keyOf = (q: QueuedPodInfo): string => q.podInfo.key;

/** The three-part queue of pods to schedule. */
export class SchedulingQueue {
  private readonly activeQ: KeyedHeap<QueuedPodInfo>;
  private readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  private readonly gated = new Map<string, QueuedPodInfo>();
  /** Popped pods not yet done, with their latest PodInfo when updated meanwhile. */
  private readonly inFlight = new Map<string, QueuedPodInfo>();
  private readonly waiters: (() => void)[] = [];
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private readonly timers: Timer[] = [];
  private closed = false;
  private readonly clock: Clock;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxUnschedulable: number;

  constructor(private readonly opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    this.activeQ = new KeyedHeap(keyOf, opts.less);
    this.backoffQ = new KeyedHeap(keyOf, (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
    this.initialBackoff = opts.podInitialBackoffMs ?? 1_000;
    this.maxBackoff = opts.podMaxBackoffMs ?? 10_000;
    this.maxUnschedulable = opts.podMaxInUnschedulablePodsDurationMs ?? 300_000;
  }

  /** Starts the periodic flushes (backoff every 1 s, unschedulable leftovers every 30 s), like upstream's Run. */
  run(): void {
    this.timers.push(this.clock.setInterval(() => this.flushBackoffCompleted(), 1_000));
    this.timers.push(this.clock.setInterval(() => this.flushUnschedulableLeftover(), 30_000));
  }

  /** Stops timers and wakes waiters with nothing. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) t.cancel();
    for (const w of this.waiters.splice(0)) w();
  }

  /** The current scheduling cycle, recorded with each popped pod. */
  get cycle(): number {
    return this.schedulingCycle;
  }

  /** A new pending pod. */
  add(pod: PodInfo): void {
    const now = this.clock.now();
    const q: QueuedPodInfo = {
      podInfo: pod,
      timestamp: now,
      initialAttemptTimestamp: now,
      attempts: 0,
      unschedulablePlugins: new Set(),
      gatingPlugin: undefined,
      lastError: false,
    };
    this.enqueue(q);
  }

  /** A pending pod changed: refresh it wherever it is; an unschedulable one gets another try. */
  update(pod: PodInfo): void {
    const k = pod.key;
    const fly = this.inFlight.get(k);
    if (fly !== undefined) {
      fly.podInfo = pod;
      return;
    }
    for (const heap of [this.activeQ, this.backoffQ]) {
      const q = heap.get(k);
      if (q !== undefined) {
        q.podInfo = pod;
        heap.push(q);
        return;
      }
    }
    const q = this.gated.get(k) ?? this.unschedulable.get(k);
    if (q === undefined) return this.add(pod);
    this.gated.delete(k);
    this.unschedulable.delete(k);
    q.podInfo = pod;
    q.unschedulablePlugins.clear();
    this.enqueue(q);
  }

  /** Removes a pod from every sub-queue (deleted, or bound by someone else). */
  delete(key: string): void {
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    this.gated.delete(key);
  }

  /** True when the pod is somewhere in the queue or being scheduled. */
  has(key: string): boolean {
    return (
      this.activeQ.has(key) ||
      this.backoffQ.has(key) ||
      this.unschedulable.has(key) ||
      this.gated.has(key) ||
      this.inFlight.has(key)
    );
  }

  /** The next pod, or undefined when none is ready (non-blocking). */
  tryPop(): QueuedPodInfo | undefined {
    const q = this.activeQ.pop();
    if (q === undefined) return undefined;
    q.attempts++;
    this.schedulingCycle++;
    this.inFlight.set(q.podInfo.key, q);
    return q;
  }

  /** Resolves when the active queue has a pod (or the queue closes). */
  async waitForPod(): Promise<void> {
    if (this.activeQ.size > 0 || this.closed) return;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** The scheduling attempt of a popped pod finished (bound, or requeued). */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /** Requeues a pod that failed: backoff if an event arrived during its attempt or it failed with an error, else unschedulable. */
  addUnschedulableIfNotPresent(q: QueuedPodInfo, podSchedulingCycle: number): void {
    const k = q.podInfo.key;
    const latest = this.inFlight.get(k);
    if (latest !== undefined) q.podInfo = latest.podInfo;
    this.inFlight.delete(k);
    if (this.activeQ.has(k) || this.backoffQ.has(k) || this.unschedulable.has(k)) return;
    q.timestamp = this.clock.now();
    if (q.lastError || this.moveRequestCycle >= podSchedulingCycle) this.backoffQ.push(q);
    else this.unschedulable.set(k, q);
  }

  /** Moves pods that `event` may help (per their rejecting plugins' registrations and hints). */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent, oldObj: unknown, newObj: unknown): void {
    // A new or changed pending pod cannot free room for others; it may only complete a gate (a gang).
    const podsOnly = event.resource === 'UnscheduledPod';
    if (!podsOnly) this.moveRequestCycle = this.schedulingCycle;
    if (!podsOnly) {
      for (const [k, q] of this.unschedulable) {
        if (!this.interested(q, event, oldObj, newObj, q.unschedulablePlugins)) continue;
        this.unschedulable.delete(k);
        this.requeue(q);
      }
    }
    // Collected first: a pod still gated goes back into the map, which a live iteration would visit again.
    const ungate: QueuedPodInfo[] = [];
    for (const q of this.gated.values())
      if (q.gatingPlugin !== undefined && this.interested(q, event, oldObj, newObj, new Set([q.gatingPlugin])))
        ungate.push(q);
    for (const q of ungate) {
      this.gated.delete(q.podInfo.key);
      this.enqueue(q);
    }
  }

  /** Moves the given pods straight to the active queue, like upstream's Activate. */
  activate(pods: PodInfo[]): void {
    for (const p of pods) {
      const q = this.unschedulable.get(p.key) ?? this.backoffQ.get(p.key);
      if (q === undefined) continue;
      this.unschedulable.delete(p.key);
      this.backoffQ.delete(p.key);
      this.pushActive(q);
    }
  }

  /** Sizes of the sub-queues. */
  pending(): PendingCounts {
    return {
      active: this.activeQ.size,
      backoff: this.backoffQ.size,
      unschedulable: this.unschedulable.size,
      gated: this.gated.size,
    };
  }

  /** Moves pods whose backoff expired to the active queue. */
  flushBackoffCompleted(): void {
    const now = this.clock.now();
    for (;;) {
      const q = this.backoffQ.peek();
      if (q === undefined || this.backoffExpiry(q) > now) break;
      this.backoffQ.pop();
      this.pushActive(q);
    }
  }

  /** Moves pods unschedulable for longer than podMaxInUnschedulablePodsDuration. */
  flushUnschedulableLeftover(): void {
    const now = this.clock.now();
    for (const [k, q] of this.unschedulable) {
      if (now - q.timestamp < this.maxUnschedulable) continue;
      this.unschedulable.delete(k);
      this.requeue(q);
    }
  }

  private interested(
    q: QueuedPodInfo,
    event: ClusterEvent,
    oldObj: unknown,
    newObj: unknown,
    plugins: ReadonlySet<string>,
  ): boolean {
    if (q.lastError || plugins.size === 0) return true;
    const events = this.opts.events(q.podInfo);
    for (const p of plugins) {
      for (const e of events.get(p) ?? []) {
        if (e.event.resource !== event.resource || (e.event.action & event.action) === 0) continue;
        if (e.hint === undefined || e.hint(q.podInfo, oldObj, newObj)) return true;
      }
    }
    return false;
  }

  private enqueue(q: QueuedPodInfo): void {
    for (const p of this.opts.preEnqueue(q.podInfo)) {
      const s = p.preEnqueue(q.podInfo);
      if (s !== null && !s.isSuccess()) {
        q.gatingPlugin = p.name;
        this.gated.set(q.podInfo.key, q);
        return;
      }
    }
    q.gatingPlugin = undefined;
    this.pushActive(q);
  }

  private requeue(q: QueuedPodInfo): void {
    if (this.backoffExpiry(q) > this.clock.now()) this.backoffQ.push(q);
    else this.pushActive(q);
  }

  private pushActive(q: QueuedPodInfo): void {
    this.activeQ.push(q);
    const w = this.waiters.shift();
    if (w !== undefined) w();
  }

  private backoffExpiry(q: QueuedPodInfo): number {
    if (q.attempts === 0) return q.timestamp;
    const d = Math.min(this.maxBackoff, this.initialBackoff * 2 ** Math.min(30, q.attempts - 1));
    return q.timestamp + d;
  }
}
