/**
 * Hollow proxies for the fleet (`kscale nodes --hollow-proxy`), like
 * kubemark's hollow kube-proxy: every hollow node runs the proxy's real list
 * and watch of Services and EndpointSlices (or Endpoints, as pre-1.19
 * kube-proxies did, to compare), with its own client and kube-proxy's QPS.
 * That watch load on the control plane is the point. Only a sample of nodes
 * (--hollow-proxy-compute-fraction) also keeps the objects and recomputes the
 * rules of its mode (--proxy-mode: iptables, nftables or ipvs) on every change
 * (rendered, never applied); the others count events and drop them, since
 * 2,500 full recomputations per change do not fit on two cores.
 */
import http from 'node:http';
import https from 'node:https';
import {
  DeletedFinalStateUnknown,
  RESOURCES,
  RESTClient,
  Reflector,
  SharedInformer,
  TokenBucket,
  listWatchFor,
  stripManagedFields,
  type ClientLogger,
  type KubeObject,
  type RestConfig,
  type Stopper,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';
import * as iptables from './iptables/index.js';
import * as ipvs from './ipvs/index.js';
import { ProxyMetrics } from './metrics.js';
import * as nftables from './nftables/index.js';
import type { Proxier, ProxyMode, SyncInput, SyncResult } from './proxier.js';
import { ServiceProxy } from './service_proxy.js';

/** Which endpoint objects hollow proxies watch. */
export type HollowProxyWatch = 'endpointslices' | 'endpoints';

/** Hollow proxy knobs. */
export interface HollowProxyOptions {
  config: RestConfig;
  nodes: readonly string[];
  /** Fraction of nodes that recompute rules (0..1). */
  computeFraction: number;
  /** Which mode's rules they compute (kube-proxy's --proxy-mode); iptables when absent. */
  mode?: ProxyMode;
  watch: HollowProxyWatch;
  /** kube-proxy's client QPS/burst (5/10). */
  qps: number;
  burst: number;
  minSyncPeriodMs: number;
  syncPeriodMs: number;
  clock: Clock;
  random?: () => number;
  logger: ClientLogger;
}

/** Counters over all hollow proxies. */
export interface HollowProxyStats {
  proxies: number;
  computing: number;
  /** The mode the computing proxies render. */
  mode: ProxyMode;
  watch: HollowProxyWatch;
  events: number;
  lists: number;
  watches: number;
  syncs: number;
  syncMsTotal: number;
  lastRenderMs: number;
  rules: number;
}

/** Renders one mode's rules and keeps only their state and counts: the proxy's CPU without a kernel. */
class HollowProxier implements Proxier {
  rules = 0;
  private readonly render: (input: SyncInput) => { bytes: number; rules: number };
  constructor(readonly mode: ProxyMode) {
    this.render = renderer(mode);
  }
  describe(): string {
    return `hollow (${this.mode} rules rendered, not applied)`;
  }
  sync(input: SyncInput): Promise<SyncResult> {
    const t0 = performance.now();
    const r = this.render(input);
    this.rules = r.rules;
    return Promise.resolve({
      full: input.full,
      bytes: r.bytes,
      rules: { rules: r.rules },
      renderMs: performance.now() - t0,
    });
  }
  cleanup(): Promise<void> {
    return Promise.resolve();
  }
}

/** A mode's renderer with the state it carries from one rendering to the next, as its real proxier keeps it. */
function renderer(mode: ProxyMode): (input: SyncInput) => { bytes: number; rules: number } {
  switch (mode) {
    case 'iptables': {
      let chains = new Map<string, readonly string[]>();
      const cache = new iptables.IptablesRenderCache();
      return (input) => {
        const r = iptables.renderIptables(input, iptables.DEFAULT_IPTABLES_CONFIG, chains, new Set(), cache);
        chains = iptables.chainsAfter(chains, input, r);
        return { bytes: r.bytes, rules: r.topRules.nat + r.topRules.filter };
      };
    }
    case 'nftables': {
      const state = new nftables.NftState();
      return (input) => {
        const r = nftables.renderNftables(input, nftables.DEFAULT_NFT_CONFIG, state);
        nftables.commitNftables(state, r);
        return { bytes: r.bytes, rules: r.rules };
      };
    }
    case 'ipvs': {
      let state = new ipvs.IpvsState();
      const cache = new ipvs.IpvsRenderCache();
      return (input) => {
        const r = ipvs.renderIpvs(input, ipvs.DEFAULT_IPVS_CONFIG, [], state, cache);
        state = r.state;
        return { bytes: r.ipvsadmBytes.length + r.ipset.length + r.addrs.length, rules: state.servers.size };
      };
    }
  }
}

/** An Endpoints object as an EndpointSlice, so the change tracker can read it. */
export function endpointsAsSlice(ep: KubeObject): KubeObject {
  type Addr = { ip?: string; nodeName?: string };
  type Subset = {
    addresses?: Addr[];
    notReadyAddresses?: Addr[];
    ports?: { name?: string; port?: number; protocol?: string }[];
  };
  const subsets = (ep.subsets as Subset[] | undefined) ?? [];
  const addr = (a: Addr, ready: boolean): KubeObject => ({
    addresses: [a.ip ?? ''],
    conditions: { ready },
    ...(a.nodeName !== undefined ? { nodeName: a.nodeName } : {}),
  });
  return {
    metadata: {
      name: `${ep.metadata?.name ?? ''}-endpoints`,
      namespace: ep.metadata?.namespace ?? '',
      labels: { 'kubernetes.io/service-name': ep.metadata?.name ?? '' },
    },
    addressType: 'IPv4',
    ports: subsets.flatMap((s) => s.ports ?? []),
    endpoints: subsets.flatMap((s) => [
      ...(s.addresses ?? []).map((a) => addr(a, true)),
      ...(s.notReadyAddresses ?? []).map((a) => addr(a, false)),
    ]),
  };
}

/** A ReflectorStore that counts and drops: the watch without the cache. */
class CountingStore {
  events = 0;
  replace(items: KubeObject[]): void {
    this.events += items.length;
  }
  add(): void {
    this.events++;
  }
  update(): void {
    this.events++;
  }
  delete(): void {
    this.events++;
  }
}

/** One node's proxy watches (and, when sampled, its rule computation). */
interface HollowProxy {
  stoppers: Stopper[];
  counters: CountingStore[];
  reflectorStats: () => { lists: number; watches: number }[];
  /** Events a computing proxy's informers delivered. */
  events?: () => number;
  proxy?: ServiceProxy;
  proxier?: HollowProxier;
}

/** Hollow proxies for a set of nodes. */
export class HollowProxies {
  private readonly proxies: HollowProxy[] = [];
  private readonly agent: http.Agent;
  private readonly clients: RESTClient[] = [];
  private syncs = 0;
  private syncMs = 0;
  private lastRenderMs = 0;

  constructor(private readonly o: HollowProxyOptions) {
    const pool = { keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 };
    const c = o.config;
    this.agent = c.host.startsWith('https:')
      ? new https.Agent({
          ...pool,
          ...(c.ca ? { ca: c.ca } : {}),
          ...(c.cert ? { cert: c.cert } : {}),
          ...(c.key ? { key: c.key } : {}),
          rejectUnauthorized: c.insecureSkipTLSVerify !== true,
        })
      : new http.Agent(pool);
  }

  /** Starts every node's watches; sampled nodes also start computing. */
  start(): void {
    const random = this.o.random ?? Math.random;
    const n = this.o.nodes.length;
    const want = this.o.computeFraction > 0 ? Math.min(n, Math.max(1, Math.round(this.o.computeFraction * n))) : 0;
    const order = this.o.nodes.map((name, i) => ({ name, i, r: random() })).sort((a, b) => a.r - b.r);
    const computing = new Set(order.slice(0, want).map((x) => x.i));
    const endpointsRes = this.o.watch === 'endpoints' ? RESOURCES.endpoints : RESOURCES.endpointslices;
    this.o.nodes.forEach((name, i) => {
      const rest = new RESTClient(
        { ...this.o.config, userAgent: `kube-proxy/v1.33.0 (linux/amd64) kscale-hollow/${name}` },
        {
          clock: this.o.clock,
          random,
          rateLimiter: new TokenBucket(this.o.qps, this.o.burst, this.o.clock),
          agent: this.agent,
        },
      );
      this.clients.push(rest);
      const reflector = { transform: stripManagedFields };
      if (!computing.has(i)) {
        const counters = [new CountingStore(), new CountingStore()];
        const refl = [RESOURCES.services, endpointsRes].map(
          (gvr, j) =>
            new Reflector(listWatchFor(rest.resource(gvr)), counters[j]!, {
              name: `${gvr.resource}@${name}`,
              clock: this.o.clock,
              random,
              logger: this.o.logger,
              ...reflector,
            }),
        );
        this.proxies.push({
          stoppers: refl.map((r) => r.run()),
          counters,
          reflectorStats: () => refl.map((r) => r.stats),
        });
        return;
      }
      const proxier = new HollowProxier(this.o.mode ?? 'iptables');
      const proxy = new ServiceProxy(proxier, {
        node: { name, zone: '' },
        syncPeriodMs: this.o.syncPeriodMs,
        minSyncPeriodMs: this.o.minSyncPeriodMs,
        metrics: new ProxyMetrics(),
        clock: this.o.clock,
        onSync: (r) => {
          this.syncs++;
          this.syncMs += r.durationMs;
          this.lastRenderMs = r.renderMs;
        },
        onError: (err) => this.o.logger.warn({ node: name, err: String(err) }, 'hollow proxy sync failed'),
      });
      const opts = {
        clock: this.o.clock,
        random,
        logger: this.o.logger,
        reflector: { name: `proxy@${name}`, ...reflector },
      };
      const services = new SharedInformer(listWatchFor(rest.resource(RESOURCES.services)), opts);
      const eps = new SharedInformer(listWatchFor(rest.resource(endpointsRes)), opts);
      const asSlice = (o: KubeObject): KubeObject => (this.o.watch === 'endpoints' ? endpointsAsSlice(o) : o);
      const unwrap = (o: KubeObject | DeletedFinalStateUnknown<KubeObject>): KubeObject =>
        o instanceof DeletedFinalStateUnknown ? o.obj : o;
      let events = 0;
      const counted =
        <A extends unknown[]>(fn: (...a: A) => void) =>
        (...a: A): void => {
          events++;
          fn(...a);
        };
      services.addEventHandler({
        onAdd: counted(proxy.onServiceAdd),
        onUpdate: counted(proxy.onServiceUpdate),
        onDelete: counted((o) => proxy.onServiceDelete(unwrap(o))),
      });
      eps.addEventHandler({
        onAdd: counted((o: KubeObject) => proxy.onSliceAdd(asSlice(o))),
        onUpdate: counted((a: KubeObject, b: KubeObject) => proxy.onSliceUpdate(asSlice(a), asSlice(b))),
        onDelete: counted((o: KubeObject | DeletedFinalStateUnknown<KubeObject>) =>
          proxy.onSliceDelete(asSlice(unwrap(o))),
        ),
      });
      const stoppers = [services.run(), eps.run()];
      void services.waitForSync().then(() => proxy.onServicesSynced());
      void eps.waitForSync().then(() => proxy.onSlicesSynced());
      this.proxies.push({
        stoppers,
        counters: [],
        reflectorStats: () => [services.stats, eps.stats],
        events: () => events,
        proxy,
        proxier,
      });
    });
  }

  /** The ServiceProxies of the nodes that compute rules (for tests and the lab). */
  computing(): ServiceProxy[] {
    return this.proxies.flatMap((p) => (p.proxy !== undefined ? [p.proxy] : []));
  }

  /** Counters summed over every hollow proxy. */
  stats(): HollowProxyStats {
    const s: HollowProxyStats = {
      proxies: this.proxies.length,
      computing: 0,
      mode: this.o.mode ?? 'iptables',
      watch: this.o.watch,
      events: 0,
      lists: 0,
      watches: 0,
      syncs: this.syncs,
      syncMsTotal: Math.round(this.syncMs),
      lastRenderMs: this.lastRenderMs,
      rules: 0,
    };
    for (const p of this.proxies) {
      for (const c of p.counters) s.events += c.events;
      for (const r of p.reflectorStats()) {
        s.lists += r.lists;
        s.watches += r.watches;
      }
      if (p.proxy !== undefined) {
        s.computing++;
        s.events += p.events?.() ?? 0;
        s.rules += p.proxier?.rules ?? 0;
      }
    }
    return s;
  }

  /** Stops every watch and runner and closes the sockets. */
  async stop(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const p of this.proxies) {
      for (const s of p.stoppers) waits.push(s.stop());
      if (p.proxy !== undefined) waits.push(p.proxy.stop());
    }
    await Promise.all(waits);
    this.agent.destroy();
  }
}
