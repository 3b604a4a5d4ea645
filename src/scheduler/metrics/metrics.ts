/**
 * The scheduler's Prometheus metrics, with upstream's names and labels:
 * attempts by result and profile, attempt latency, pending pods by queue,
 * and the pod scheduling SLI (first enqueue to bound, by attempts).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PendingCounts } from '../queue/scheduling_queue.js';

const exp = (start: number, factor: number, n: number): number[] =>
  Array.from({ length: n }, (_, i) => start * factor ** i);

/** Scheduler metrics in one registry. */
export class SchedulerMetrics {
  readonly registry = new Registry();
  readonly scheduleAttempts = new Counter({
    name: 'scheduler_schedule_attempts_total',
    help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
    labelNames: ['result', 'profile'],
    registers: [this.registry],
  });
  readonly attemptDuration = new Histogram({
    name: 'scheduler_scheduling_attempt_duration_seconds',
    help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
    labelNames: ['result', 'profile'],
    buckets: exp(0.001, 2, 15),
    registers: [this.registry],
  });
  readonly podSchedulingSLI = new Histogram({
    name: 'scheduler_pod_scheduling_sli_duration_seconds',
    help: 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
    labelNames: ['attempts'],
    buckets: exp(0.01, 2, 20),
    registers: [this.registry],
  });
  readonly pendingPods: Gauge;
  readonly preemptionVictims = new Histogram({
    name: 'scheduler_preemption_victims',
    help: 'Number of selected preemption victims',
    buckets: exp(1, 2, 7),
    registers: [this.registry],
  });

  constructor(pending: () => PendingCounts) {
    this.pendingPods = new Gauge({
      name: 'scheduler_pending_pods',
      help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
      labelNames: ['queue'],
      registers: [this.registry],
      collect() {
        const p = pending();
        this.set({ queue: 'active' }, p.active);
        this.set({ queue: 'backoff' }, p.backoff);
        this.set({ queue: 'unschedulable' }, p.unschedulable);
        this.set({ queue: 'gated' }, p.gated);
      },
    });
  }
}
