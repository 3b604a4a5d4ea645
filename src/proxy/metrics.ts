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

/** The proxy's metrics, in one registry. */
export class ProxyMetrics {
  readonly registry = new Registry();
  readonly syncDuration = new Histogram({
    name: 'kubeproxy_sync_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds',
    buckets: SYNC_BUCKETS,
    registers: [this.registry],
  });
  readonly syncFullDuration = new Histogram({
    name: 'kubeproxy_sync_full_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds for full resyncs',
    buckets: SYNC_BUCKETS,
    registers: [this.registry],
  });
  readonly syncPartialDuration = new Histogram({
    name: 'kubeproxy_sync_partial_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds for partial resyncs',
    buckets: SYNC_BUCKETS,
    registers: [this.registry],
  });
  readonly networkProgrammingDuration = new Histogram({
    name: 'kubeproxy_network_programming_duration_seconds',
    help: 'In Cluster Network Programming Latency in seconds',
    buckets: NPL_BUCKETS,
    registers: [this.registry],
  });
  readonly lastSync = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
    help: 'The last time proxy rules were successfully synced',
    registers: [this.registry],
  });
  readonly endpointChangesPending = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_endpoint_changes_pending',
    help: 'Pending proxy rules Endpoint changes',
    registers: [this.registry],
  });
  readonly endpointChangesTotal = new Counter({
    name: 'kubeproxy_sync_proxy_rules_endpoint_changes_total',
    help: 'Cumulative proxy rules Endpoint changes',
    registers: [this.registry],
  });
  readonly serviceChangesPending = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_service_changes_pending',
    help: 'Pending proxy rules Service changes',
    registers: [this.registry],
  });
  readonly serviceChangesTotal = new Counter({
    name: 'kubeproxy_sync_proxy_rules_service_changes_total',
    help: 'Cumulative proxy rules Service changes',
    registers: [this.registry],
  });
  readonly iptablesTotal = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_iptables_total',
    help: 'Total number of iptables rules owned by kube-proxy',
    labelNames: ['table'],
    registers: [this.registry],
  });
  readonly objects = new Gauge({
    name: 'kscale_proxy_objects',
    help: 'Kernel objects the proxy owns by kind (nftables rules and map elements, IPVS virtual and real servers)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly partialRestoreFailures = new Counter({
    name: 'kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total',
    help: 'Cumulative proxy iptables partial restore failures',
    registers: [this.registry],
  });
  readonly syncBytes = new Histogram({
    name: 'kscale_proxy_sync_bytes',
    help: 'Bytes of rules handed to the kernel tools per sync',
    buckets: [256, 4096, 65536, 1 << 20, 16 << 20, 256 << 20],
    registers: [this.registry],
  });
  readonly conntrackCleared = new Counter({
    name: 'kscale_proxy_conntrack_clear_total',
    help: 'conntrack deletions issued for stale UDP flows',
    registers: [this.registry],
  });
}
