/**
 * The public surface of src/proxy, kscale's kube-proxy: change trackers for
 * Services and EndpointSlices, a ServiceProxy that syncs them into one of
 * three modes (iptables, ipvs, nftables), a ProxyServer that wires the
 * informers, metrics and flags together, and the fleet's HollowProxies.
 */
export * from './types.js';
export { servicePorts, shouldSkipService, sameServicePort, DEFAULT_STICKY_SECONDS } from './service_info.js';
export { endpointsFromSlices, sliceServiceKey, sameEndpoints } from './endpoint_info.js';
export {
  ServiceChangeTracker,
  applyServiceChanges,
  type ServiceChange,
  type ServiceUpdateResult,
} from './service_change_tracker.js';
export {
  EndpointsChangeTracker,
  applyEndpointsChanges,
  type EndpointsChange,
  type EndpointsCheckout,
  type EndpointsUpdateResult,
} from './endpoints_change_tracker.js';
export { categorizeEndpoints, canUseTopology, type CategorizedEndpoints } from './topology.js';
export { BoundedFrequencyRunner, type RunnerOptions } from './runner.js';
export { Executor, ExecError, type ExecResult } from './exec.js';
export { Conntrack, type StaleUDP } from './conntrack.js';
export { ProxyMetrics } from './metrics.js';
export type { Proxier, ProxyMode, SyncInput, SyncResult } from './proxier.js';
export { ServiceProxy, type ServiceProxyOptions } from './service_proxy.js';
export { ProxyServer, newProxier, type ProxyServerOptions } from './proxy_server.js';
export {
  HollowProxies,
  endpointsAsSlice,
  type HollowProxyOptions,
  type HollowProxyStats,
  type HollowProxyWatch,
} from './hollow_proxy.js';
export * as iptables from './iptables/index.js';
export * as nftables from './nftables/index.js';
export * as ipvs from './ipvs/index.js';
