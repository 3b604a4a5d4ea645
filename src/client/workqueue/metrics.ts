/**
 * Workqueue metrics, like client-go's util/workqueue metrics.go: a queue
 * created with a name reports to the process's MetricsProvider (SetProvider).
 * Without a provider, or without a name, a queue records nothing and pays one
 * branch per call.
 */

/** What one named queue reports; times are in milliseconds on the queue's clock. */
export interface QueueMetrics {
  add(): void;
  get(queuedMs: number): void;
  done(workMs: number): void;
  retry(): void;
  /** Registers a function giving the start times of the items being processed (for the unfinished-work gauges). */
  processing(startTimes: () => Iterable<number>): void;
}

/** Makes the metrics of a queue by name, like client-go's workqueue.MetricsProvider. */
export interface WorkqueueMetricsProvider {
  newQueueMetrics(name: string): QueueMetrics;
}

let provider: WorkqueueMetricsProvider | undefined;

/** Sets the provider queues created from now on report to, like client-go's workqueue.SetProvider. */
export function setWorkqueueMetricsProvider(p: WorkqueueMetricsProvider | undefined): void {
  provider = p;
}

/** The metrics of a new queue named `name`, or undefined when there is no provider or no name. */
export function queueMetricsFor(name: string | undefined): QueueMetrics | undefined {
  return name === undefined || name === '' ? undefined : provider?.newQueueMetrics(name);
}
