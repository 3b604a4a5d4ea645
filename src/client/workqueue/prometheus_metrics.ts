/**
 * The workqueue family under upstream's names and buckets
 * (component-base/metrics/prometheus/workqueue), label `name`. The two
 * unfinished-work gauges are computed at scrape time from the items in
 * processing, where client-go updates them every 500 ms.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueueMetrics, WorkqueueMetricsProvider } from './metrics.js';

// Upstream: exponential buckets from 10 ns, ×10, 10 of them.
const BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/** A WorkqueueMetricsProvider registering the workqueue family in `registry`; `now` is the queues' clock. */
export function prometheusWorkqueueMetrics(registry: Registry, now: () => number): WorkqueueMetricsProvider {
  const labelNames = ['name'];
  const registers = [registry];
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames,
    registers,
  });
  const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers });
  const queued = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested.',
    labelNames,
    buckets: BUCKETS,
    registers,
  });
  const work = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames,
    buckets: BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames,
    registers,
  });
  const inProcess = new Map<string, () => Iterable<number>>();
  const sums = (): Map<string, { total: number; longest: number }> => {
    const t = now();
    const out = new Map<string, { total: number; longest: number }>();
    for (const [name, starts] of inProcess) {
      let total = 0;
      let longest = 0;
      for (const s of starts()) {
        const d = (t - s) / 1000;
        total += d;
        if (d > longest) longest = d;
      }
      out.set(name, { total, longest });
    }
    return out;
  };
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration.",
    labelNames,
    registers,
    collect() {
      for (const [name, s] of sums()) this.set({ name }, s.total);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames,
    registers,
    collect() {
      for (const [name, s] of sums()) this.set({ name }, s.longest);
    },
  });
  return {
    newQueueMetrics(name: string): QueueMetrics {
      const a = adds.labels(name);
      const d = depth.labels(name);
      const q = queued.labels(name);
      const w = work.labels(name);
      const r = retries.labels(name);
      // Like client-go's WithLabelValues, a new queue's series exist at zero.
      d.set(0);
      a.inc(0);
      r.inc(0);
      return {
        add: () => {
          a.inc();
          d.inc();
        },
        get: (ms) => {
          d.dec();
          q.observe(ms / 1000);
        },
        done: (ms) => w.observe(ms / 1000),
        retry: () => r.inc(),
        processing: (starts) => inProcess.set(name, starts),
      };
    },
  };
}
