/**
 * kube-proxy's metrics with upstream's names (pkg/proxy/metrics): sync
 * durations (all, full, partial), network programming latency measured from
 * the EndpointSlice's last-change-trigger-time, pending and total changes,
 * and rule counts. kscale adds the bytes handed to the kernel per sync.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// Upstream: exponential buckets from 1 ms, doubling, 15 of them.
const SYNC_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);
// Upstream merges linear buckets (0.25 s … 5 s, 1 s … 30 s, 5 s … 60 s, 30 s … 300 s).
const NPL_BUCKETS = [
  0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 90, 120, 150,
  180, 240, 300,
];

function histogram(registry: Registry, name: string, help: string, buckets: number[]): Histogram {
  return new Histogram({ name, help, buckets, registers: [registry] });
}

function gauge(registry: Registry, name: string, help: string, labelNames?: string[]): Gauge {
  return new Gauge({ name, help, ...(labelNames === undefined ? {} : { labelNames }), registers: [registry] });
}

function counter(registry: Registry, name: string, help: string): Counter {
  return new Counter({ name, help, registers: [registry] });
}

/** The proxy's metrics, in one registry. */
export class ProxyMetrics {
  readonly registry = new Registry();
  readonly syncDuration = histogram(
    this.registry,
    'kubeproxy_sync_proxy_rules_duration_seconds',
    'SyncProxyRules latency in seconds',
    SYNC_BUCKETS,
  );
  readonly syncFullDuration = histogram(
    this.registry,
    'kubeproxy_sync_full_proxy_rules_duration_seconds',
    'SyncProxyRules latency in seconds for full resyncs',
    SYNC_BUCKETS,
  );
  readonly syncPartialDuration = histogram(
    this.registry,
    'kubeproxy_sync_partial_proxy_rules_duration_seconds',
    'SyncProxyRules latency in seconds for partial resyncs',
    SYNC_BUCKETS,
  );
  readonly networkProgrammingDuration = histogram(
    this.registry,
    'kubeproxy_network_programming_duration_seconds',
    'In Cluster Network Programming Latency in seconds',
    NPL_BUCKETS,
  );
  readonly lastSync = gauge(
    this.registry,
    'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
    'The last time proxy rules were successfully synced',
  );
  readonly endpointChangesPending = gauge(
    this.registry,
    'kubeproxy_sync_proxy_rules_endpoint_changes_pending',
    'Pending proxy rules Endpoint changes',
  );
  readonly endpointChangesTotal = counter(
    this.registry,
    'kubeproxy_sync_proxy_rules_endpoint_changes_total',
    'Cumulative proxy rules Endpoint changes',
  );
  readonly serviceChangesPending = gauge(
    this.registry,
    'kubeproxy_sync_proxy_rules_service_changes_pending',
    'Pending proxy rules Service changes',
  );
  readonly serviceChangesTotal = counter(
    this.registry,
    'kubeproxy_sync_proxy_rules_service_changes_total',
    'Cumulative proxy rules Service changes',
  );
  readonly iptablesTotal = gauge(
    this.registry,
    'kubeproxy_sync_proxy_rules_iptables_total',
    'Total number of iptables rules owned by kube-proxy',
    ['table'],
  );
  readonly objects = gauge(
    this.registry,
    'kscale_proxy_objects',
    'Kernel objects the proxy owns by kind (nftables rules and map elements, IPVS virtual and real servers)',
    ['kind'],
  );
  readonly partialRestoreFailures = counter(
    this.registry,
    'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total',
    'Cumulative proxy iptables partial restore failures',
  );
  readonly syncBytes = histogram(
    this.registry,
    'kscale_proxy_sync_bytes',
    'Bytes of rules handed to the kernel tools per sync',
    [256, 4096, 65536, 1 << 20, 16 << 20, 256 << 20],
  );
  readonly conntrackCleared = counter(
    this.registry,
    'kscale_proxy_conntrack_clear_total',
    'conntrack deletions issued for stale UDP flows',
  );
}
