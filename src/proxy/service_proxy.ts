/**
 * ServiceProxy: the mode-independent half of kube-proxy. Informer events go
 * to the change trackers; a BoundedFrequencyRunner calls syncProxyRules,
 * which takes the changes, updates the service and endpoint maps, hands the
 * changed ports to the mode's Proxier, clears stale UDP conntrack entries,
 * and records the sync and network-programming metrics. Nothing syncs until
 * both informers have synced, as upstream waits for isInitialized.
 */
import type { KubeObject } from '../client/index.js';
import { RealClock, type Clock } from '../clock/index.js';
import { Conntrack, type StaleUDP } from './conntrack.js';
import { EndpointsChangeTracker, applyEndpointsChanges } from './endpoints_change_tracker.js';
import type { ProxyMetrics } from './metrics.js';
import type { Proxier, SyncResult } from './proxier.js';
import { BoundedFrequencyRunner } from './runner.js';
import { ServiceChangeTracker, applyServiceChanges } from './service_change_tracker.js';
import type { EndpointsMap, NodeInfo, ServicePortMap } from './types.js';

/** ServiceProxy knobs, with upstream's flag names. */
export interface ServiceProxyOptions {
  node: NodeInfo;
  /** --sync-period: the longest time between syncs (upstream default 30 s). */
  syncPeriodMs: number;
  /** --min-sync-period: the shortest time between syncs (upstream default 1 s). */
  minSyncPeriodMs: number;
  metrics: ProxyMetrics;
  /** Clears stale UDP flows; undefined skips conntrack (hollow proxies). */
  conntrack?: Conntrack;
  clock?: Clock;
  /** A full resync at least this often, like upstream's FullSyncPeriod (1 h). */
  fullSyncPeriodMs?: number;
  onError?: (err: unknown) => void;
  onSync?: (r: SyncResult & { durationMs: number }) => void;
  /** --healthz-bind-address's server: told of every queued change and every successful sync. */
  health?: { queuedUpdate(): void; updated(): void };
}

/** Trackers, maps, the runner and one Proxier. */
export class ServiceProxy {
  readonly services: ServicePortMap = new Map();
  readonly endpoints: EndpointsMap = new Map();
  readonly serviceChanges = new ServiceChangeTracker();
  readonly endpointsChanges: EndpointsChangeTracker;
  readonly runner: BoundedFrequencyRunner;
  private readonly clock: Clock;
  private servicesSynced = false;
  private slicesSynced = false;
  private needFull = true;
  private lastFull = 0;
  private pendingChanged = new Set<string>();
  private pendingStale: StaleUDP = { ips: new Set<string>(), nodePorts: new Set<number>(), nat: [] };
  private started = false;
  /** The last sync's result. */
  last: (SyncResult & { durationMs: number }) | undefined;

  constructor(
    readonly proxier: Proxier,
    private readonly opts: ServiceProxyOptions,
  ) {
    this.clock = opts.clock ?? new RealClock();
    this.endpointsChanges = new EndpointsChangeTracker(opts.node.name);
    this.runner = new BoundedFrequencyRunner(() => this.syncProxyRules(), {
      minIntervalMs: opts.minSyncPeriodMs,
      maxIntervalMs: opts.syncPeriodMs,
      clock: this.clock,
      onError: (err) => opts.onError?.(err),
    });
  }

  /** Service informer events (upstream's ServiceHandler). */
  onServiceAdd = (svc: KubeObject): void => this.serviceChanged(undefined, svc);
  onServiceUpdate = (old: KubeObject, svc: KubeObject): void => this.serviceChanged(old, svc);
  onServiceDelete = (svc: KubeObject): void => this.serviceChanged(svc, undefined);
  /** Called once the service informer has synced. */
  onServicesSynced(): void {
    this.servicesSynced = true;
    this.maybeStart();
  }

  /** EndpointSlice informer events (upstream's EndpointSliceHandler). */
  onSliceAdd = (slice: KubeObject): void => this.sliceChanged(slice, false);
  onSliceUpdate = (_old: KubeObject, slice: KubeObject): void => this.sliceChanged(slice, false);
  onSliceDelete = (slice: KubeObject): void => this.sliceChanged(slice, true);
  /** Called once the EndpointSlice informer has synced. */
  onSlicesSynced(): void {
    this.slicesSynced = true;
    this.maybeStart();
  }

  /** Stops the runner, waiting for a sync in progress, then lets the proxier release its tool processes. */
  async stop(): Promise<void> {
    await this.runner.stop();
    await this.proxier.close?.();
  }

  private serviceChanged(old: KubeObject | undefined, svc: KubeObject | undefined): void {
    this.opts.metrics.serviceChangesTotal.inc();
    if (this.serviceChanges.update(old, svc)) {
      this.opts.health?.queuedUpdate();
      if (this.started) this.runner.run();
    }
    this.opts.metrics.serviceChangesPending.set(this.serviceChanges.pending());
  }

  private sliceChanged(slice: KubeObject, removed: boolean): void {
    this.opts.metrics.endpointChangesTotal.inc();
    if (this.endpointsChanges.sliceUpdate(slice, removed)) {
      this.opts.health?.queuedUpdate();
      if (this.started) this.runner.run();
    }
    this.opts.metrics.endpointChangesPending.set(this.endpointsChanges.pending());
  }

  private maybeStart(): void {
    if (this.started || !this.servicesSynced || !this.slicesSynced) return;
    this.started = true;
    // The first sync is an update waiting from the start, so a proxy that never syncs turns unhealthy.
    this.opts.health?.queuedUpdate();
    this.runner.start();
  }

  /** One sync: apply pending changes to the maps and program the kernel. Exposed for tests and benchmarks. */
  async syncProxyRules(): Promise<void> {
    const t0 = performance.now();
    const svcResult = applyServiceChanges(this.services, this.serviceChanges.checkout());
    const epCheckout = this.endpointsChanges.checkout();
    const epResult = applyEndpointsChanges(this.endpoints, epCheckout.changes);
    this.opts.metrics.serviceChangesPending.set(0);
    this.opts.metrics.endpointChangesPending.set(0);
    for (const n of svcResult.changed) this.pendingChanged.add(n);
    for (const n of epResult.changed) this.pendingChanged.add(n);
    this.collectStale(svcResult.deletedUDPClusterIPs, epResult.deleted, epResult.newlyActive);
    const now = this.clock.now();
    const full = this.needFull || now - this.lastFull >= (this.opts.fullSyncPeriodMs ?? 3_600_000);
    let result: SyncResult;
    try {
      result = await this.proxier.sync({
        services: this.services,
        endpoints: this.endpoints,
        node: this.opts.node,
        changed: this.pendingChanged,
        full,
      });
    } catch (err) {
      // Upstream: a failed restore means the kernel state is unknown; the next sync rewrites everything.
      this.needFull = true;
      if (!full) this.opts.metrics.partialRestoreFailures.inc();
      throw err;
    }
    this.needFull = false;
    if (full) this.lastFull = now;
    this.pendingChanged = new Set();
    if (this.opts.conntrack !== undefined) {
      const stale = this.pendingStale;
      this.pendingStale = { ips: new Set<string>(), nodePorts: new Set<number>(), nat: [] };
      this.opts.metrics.conntrackCleared.inc(await this.opts.conntrack.clear(stale));
    }
    const durationMs = performance.now() - t0;
    const m = this.opts.metrics;
    m.syncDuration.observe(durationMs / 1000);
    (full ? m.syncFullDuration : m.syncPartialDuration).observe(durationMs / 1000);
    m.lastSync.set(this.clock.now() / 1000);
    m.syncBytes.observe(result.bytes);
    for (const [table, n] of Object.entries(result.rules)) {
      if (this.proxier.mode === 'iptables') m.iptablesTotal.set({ table }, n);
      else m.objects.set({ kind: table }, n);
    }
    const end = this.clock.now();
    for (const t of epCheckout.triggerTimes) m.networkProgrammingDuration.observe(Math.max(0, end - t) / 1000);
    this.last = { ...result, durationMs };
    this.opts.health?.updated();
    this.opts.onSync?.(this.last);
  }

  /** UDP flows made stale by these changes, kept until a sync succeeds (rules first, then conntrack). */
  private collectStale(
    deletedIPs: Set<string>,
    deleted: { spn: string; endpoint: { ip: string } }[],
    newlyActive: Set<string>,
  ): void {
    const ips = this.pendingStale.ips as Set<string>;
    const nodePorts = this.pendingStale.nodePorts as Set<number>;
    const nat = this.pendingStale.nat as { origDst?: string; nodePort?: number; endpointIP: string }[];
    for (const ip of deletedIPs) ips.add(ip);
    for (const d of deleted) {
      const svc = this.services.get(d.spn);
      if (svc === undefined || svc.protocol !== 'UDP') continue;
      nat.push({ origDst: svc.clusterIP, endpointIP: d.endpoint.ip });
      for (const ext of svc.externalIPs) nat.push({ origDst: ext, endpointIP: d.endpoint.ip });
      if (svc.nodePort !== 0) nat.push({ nodePort: svc.nodePort, endpointIP: d.endpoint.ip });
    }
    // A UDP service that had no endpoints was rejecting; flows cached with that verdict must go.
    for (const spn of newlyActive) {
      const svc = this.services.get(spn);
      if (svc === undefined || svc.protocol !== 'UDP') continue;
      ips.add(svc.clusterIP);
      if (svc.nodePort !== 0) nodePorts.add(svc.nodePort);
    }
  }
}
