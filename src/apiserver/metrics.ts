/**
 * Prometheus metrics with upstream's names and labels, so dashboards and the
 * lab read kscale like a kube-apiserver: request counts and latencies (and the
 * SLI latency, which leaves out watches), in-flight and long-running gauges,
 * and storage call latency as etcd_request_duration_seconds. Node's runtime
 * metrics stand in for kube-apiserver's go_* ones: nodejs_eventloop_lag_*
 * (a busy or GC-paused event loop delays requests before they are timed),
 * nodejs_gc_duration_seconds, process_cpu_seconds_total, heap sizes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast_metrics.js';

const REQUEST_LABELS = [
  'verb',
  'dry_run',
  'group',
  'version',
  'resource',
  'subresource',
  'scope',
  'component',
] as const;
const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The API server's metrics, in one registry. */
export class ApiServerMetrics {
  readonly registry = new Registry();
  constructor() {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
  }
  // The three per-request series resolve their children once (fast_metrics.ts): they are updated on every request.
  readonly requestTotal = new FastCounter(
    'apiserver_request_total',
    'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    [...REQUEST_LABELS, 'code'],
    [this.registry],
  );
  readonly requestDuration = new FastHistogram(
    'apiserver_request_duration_seconds',
    'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    REQUEST_LABELS,
    BUCKETS,
    [this.registry],
  );
  readonly requestSliDuration = new FastHistogram(
    'apiserver_request_sli_duration_seconds',
    'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
    ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    BUCKETS,
    [this.registry],
  );
  /** Reads the max-in-flight filter's counts at scrape time (set by that filter), instead of a gauge update per request. */
  inflightSource: (() => { readOnly: number; mutating: number }) | undefined;
  readonly inflight = new Gauge({
    name: 'apiserver_current_inflight_requests',
    help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
    labelNames: ['request_kind'],
    registers: [this.registry],
    collect: () => {
      const used = this.inflightSource?.();
      if (used === undefined) return;
      this.inflight.set({ request_kind: 'readOnly' }, used.readOnly);
      this.inflight.set({ request_kind: 'mutating' }, used.mutating);
    },
  });
  readonly longRunning = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    registers: [this.registry],
  });
  readonly rejected = new Counter({
    name: 'apiserver_dropped_requests_total',
    help: "Number of requests dropped with 'Try again later' response.",
    labelNames: ['request_kind'],
    registers: [this.registry],
  });
  readonly storageDuration = new Histogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'type'],
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    registers: [this.registry],
  });
  readonly storageSize = new Gauge({
    name: 'apiserver_storage_size_bytes',
    help: 'Size of the storage database file physically allocated in bytes.',
    labelNames: ['storage_cluster_id'],
    registers: [this.registry],
  });
  readonly storageWriteQueue = new Gauge({
    name: 'kscale_storage_write_queue_length',
    help: "Writes waiting for the embedded store's writer thread.",
    registers: [this.registry],
  });
  readonly storageWritesRejected = new Gauge({
    name: 'kscale_storage_writes_rejected_total',
    help: 'Writes refused with 429 because the storage write queue was full.',
    registers: [this.registry],
  });
  readonly storageDefragment = new Gauge({
    name: 'kscale_storage_defragment_last_duration_seconds',
    help: 'How long the last defragment (VACUUM) blocked every write to the embedded store.',
    registers: [this.registry],
  });
  readonly storageAlarm = new Gauge({
    name: 'kscale_storage_alarm',
    help: "Active storage alarms (1 when raised), like etcd's NOSPACE.",
    labelNames: ['alarm'],
    registers: [this.registry],
  });
}
