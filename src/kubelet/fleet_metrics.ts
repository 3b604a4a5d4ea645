/**
 * The fleet's /metrics: kubelet metrics summed over every hollow kubelet of
 * the process, under upstream's names, so the queries and dashboards written
 * for real kubelets read a fleet as one big node pool:
 * - kubelet_pod_start_sli_duration_seconds: pod creation to Running (pod
 *   startup SLI, image pulls excluded; hollow pods pull nothing);
 * - kubelet_node_startup_duration_seconds: a node's start to its registration;
 *   upstream's is a gauge per kubelet, a fleet of thousands exports the
 *   distribution, so here it is a histogram under the same name;
 * - rest_client_request_duration_seconds{verb,host}: client-go's request
 *   latency, for the node lease calls (the kubelet's heartbeat);
 * - kubelet_node_name-free gauges of the fleet: nodes registered, pods running.
 */
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** kubelet_pod_start_sli_duration_seconds's buckets (pkg/kubelet/metrics). */
export const POD_START_SLI_BUCKETS = [
  0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600,
];

/** client-go's rest_client_request_duration_seconds buckets (component-base/metrics/prometheus/restclient). */
export const REST_CLIENT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** What the fleet counts at scrape time. */
export interface FleetGauges {
  registered(): number;
  runningPods(): number;
}

/** The fleet's metrics registry. */
export class FleetMetrics {
  readonly registry = new Registry();
  private readonly podStartSLI: Histogram;
  private readonly nodeStartup: Histogram;
  private readonly restClient: Histogram<'verb' | 'host'>;

  /** `host` is the API server's host:port, as client-go's label. */
  constructor(
    private readonly host: string,
    gauges?: FleetGauges,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.podStartSLI = new Histogram({
      name: 'kubelet_pod_start_sli_duration_seconds',
      help: 'Duration in seconds to start a pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started (summed over the fleet)',
      buckets: POD_START_SLI_BUCKETS,
      registers: [this.registry],
    });
    this.nodeStartup = new Histogram({
      name: 'kubelet_node_startup_duration_seconds',
      help: "Duration in seconds of node startup in total: a hollow node's start to its registration (a histogram over the fleet; upstream's is a gauge per kubelet)",
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
      registers: [this.registry],
    });
    this.restClient = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host (the node lease calls of every hollow kubelet)',
      labelNames: ['verb', 'host'],
      buckets: REST_CLIENT_BUCKETS,
      registers: [this.registry],
    });
    if (gauges !== undefined) {
      new Gauge({
        name: 'kubelet_running_pods',
        help: 'Number of pods that have a running pod sandbox (summed over the fleet)',
        registers: [this.registry],
        collect() {
          this.set(gauges.runningPods());
        },
      });
      new Gauge({
        name: 'kscale_fleet_registered_nodes',
        help: 'Hollow nodes of this fleet process that have registered',
        registers: [this.registry],
        collect() {
          this.set(gauges.registered());
        },
      });
    }
  }

  /** A pod reported Running at `nowMs`; `creationTimestamp` is its metadata's (RFC 3339). */
  podStarted(creationTimestamp: string | undefined, nowMs: number): void {
    const created = Date.parse(creationTimestamp ?? '');
    if (Number.isFinite(created)) this.podStartSLI.observe(Math.max(0, nowMs - created) / 1000);
  }

  /** A node registered `ms` after its start. */
  nodeStarted(ms: number): void {
    this.nodeStartup.observe(Math.max(0, ms) / 1000);
  }

  /** Times one lease call (`verb` as client-go's label: GET, POST, PUT). */
  async timeLease<T>(verb: string, monotonic: () => number, call: () => Promise<T>): Promise<T> {
    const t0 = monotonic();
    try {
      return await call();
    } finally {
      this.restClient.observe({ verb, host: this.host }, (monotonic() - t0) / 1000);
    }
  }
}
