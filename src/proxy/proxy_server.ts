/**
 * ProxyServer, like upstream's cmd/kube-proxy server: builds the Proxier for
 * the chosen mode, runs informers for Services and EndpointSlices that feed a
 * ServiceProxy, and serves /metrics and /healthz. It speaks only the
 * Kubernetes API; the kernel tools may run in another network namespace.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeletedFinalStateUnknown,
  RESOURCES,
  isNotFoundError,
  newInformer,
  silentLogger,
  type ClientLogger,
  type KubeObject,
  type RESTClient,
  type SharedInformer,
  type Stopper,
} from '../client/index.js';
import { RealClock, type Clock } from '../clock/index.js';
import { Conntrack } from './conntrack.js';
import { Executor } from './exec.js';
import { IptablesProxier, type IptablesBackend } from './iptables/index.js';
import { IpvsProxier, type IpvsScheduler } from './ipvs/index.js';
import { ProxyMetrics } from './metrics.js';
import { ProxyHealthServer } from './healthcheck.js';
import { NftablesProxier } from './nftables/index.js';
import type { Proxier, ProxyMode, SyncResult } from './proxier.js';
import { ServiceProxy } from './service_proxy.js';
import type { NodeInfo } from './types.js';

/** ProxyServer options; the flag names are upstream's. */
export interface ProxyServerOptions {
  client: RESTClient;
  mode: ProxyMode;
  /** --hostname-override: this node's name. */
  nodeName: string;
  syncPeriodMs: number;
  minSyncPeriodMs: number;
  masqueradeBit: number;
  masqueradeAll: boolean;
  clusterCIDR: string;
  iptablesBackend: IptablesBackend | 'auto';
  ipvsScheduler: IpvsScheduler;
  /** kscale: program the kernel inside this network namespace. */
  netns?: string;
  /** --metrics-bind-address host:port ("" disables; port 0 picks a free one). */
  metricsBindAddress?: string;
  /** --healthz-bind-address host:port of the JSON /healthz and /livez ("" disables). */
  healthzBindAddress?: string;
  /** The address is the default, not asked for: when it is busy, log and serve no health (many proxies per host). */
  healthzBindAddressDefault?: boolean;
  clock?: Clock;
  logger?: ClientLogger;
  onSync?: (r: SyncResult & { durationMs: number }) => void;
}

/** Builds the Proxier for a mode. */
export async function newProxier(
  mode: ProxyMode,
  exec: Executor,
  o: Pick<ProxyServerOptions, 'masqueradeBit' | 'masqueradeAll' | 'clusterCIDR' | 'iptablesBackend' | 'ipvsScheduler'>,
): Promise<Proxier> {
  const cfg = { masqueradeBit: o.masqueradeBit, masqueradeAll: o.masqueradeAll, clusterCIDR: o.clusterCIDR };
  if (mode === 'iptables') return IptablesProxier.create(exec, cfg, o.iptablesBackend);
  if (mode === 'nftables') return new NftablesProxier(exec, cfg);
  return IpvsProxier.create(exec, { ...cfg, scheduler: o.ipvsScheduler, iptablesBackend: o.iptablesBackend });
}

/** Reads this node's zone label; a node that does not exist (yet) has none. */
async function nodeInfo(client: RESTClient, name: string): Promise<NodeInfo> {
  try {
    const node = await client.resource(RESOURCES.nodes).get(name);
    return { name, zone: node.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '' };
  } catch (err) {
    if (isNotFoundError(err)) return { name, zone: '' };
    throw err;
  }
}

/** A running proxy. */
export class ProxyServer {
  readonly metrics = new ProxyMetrics();
  proxy: ServiceProxy | undefined;
  proxier: Proxier | undefined;
  metricsURL: string | undefined;
  healthzURL: string | undefined;
  private health: ProxyHealthServer | undefined;
  private services: SharedInformer | undefined;
  private slices: SharedInformer | undefined;
  private stoppers: Stopper[] = [];
  private httpServer: http.Server | undefined;

  constructor(private readonly o: ProxyServerOptions) {}

  /** Builds the proxier, starts informers and the metrics endpoint; resolves once both informers synced. */
  async start(signal?: AbortSignal): Promise<void> {
    const log = this.o.logger ?? silentLogger;
    const exec = new Executor(this.o.netns);
    this.proxier = await newProxier(this.o.mode, exec, this.o);
    log.info({ mode: this.proxier.describe() }, 'using proxy mode');
    const node = await nodeInfo(this.o.client, this.o.nodeName);
    if (this.o.healthzBindAddress !== undefined && this.o.healthzBindAddress !== '') {
      // Upstream's health timeout: twice the sync period.
      this.health = new ProxyHealthServer(2 * this.o.syncPeriodMs, this.o.clock ?? new RealClock());
      try {
        this.healthzURL = await this.health.serve(this.o.healthzBindAddress);
      } catch (err) {
        if (this.o.healthzBindAddressDefault !== true || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE')
          throw err;
        log.warn({ address: this.o.healthzBindAddress }, 'the healthz address is in use; not serving /healthz');
        this.health = undefined;
      }
    }
    const proxy = new ServiceProxy(this.proxier, {
      ...(this.health !== undefined ? { health: this.health } : {}),
      node,
      syncPeriodMs: this.o.syncPeriodMs,
      minSyncPeriodMs: this.o.minSyncPeriodMs,
      metrics: this.metrics,
      conntrack: new Conntrack(exec),
      clock: this.o.clock ?? new RealClock(),
      onError: (err) => log.warn({ err: String(err) }, 'sync failed; the next sync rewrites everything'),
      ...(this.o.onSync ? { onSync: this.o.onSync } : {}),
    });
    this.proxy = proxy;
    if (this.o.metricsBindAddress !== undefined && this.o.metricsBindAddress !== '')
      await this.serveMetrics(this.o.metricsBindAddress);
    const opts = { ...(this.o.clock ? { clock: this.o.clock } : {}), logger: log };
    this.services = newInformer<KubeObject>(this.o.client, RESOURCES.services, {}, opts);
    this.slices = newInformer<KubeObject>(this.o.client, RESOURCES.endpointslices, {}, opts);
    this.services.addEventHandler({
      onAdd: proxy.onServiceAdd,
      onUpdate: proxy.onServiceUpdate,
      onDelete: (o) => proxy.onServiceDelete(o instanceof DeletedFinalStateUnknown ? o.obj : o),
    });
    this.slices.addEventHandler({
      onAdd: proxy.onSliceAdd,
      onUpdate: proxy.onSliceUpdate,
      onDelete: (o) => proxy.onSliceDelete(o instanceof DeletedFinalStateUnknown ? o.obj : o),
    });
    this.stoppers.push(this.services.run(), this.slices.run());
    if (!(await this.services.waitForSync(signal))) return;
    proxy.onServicesSynced();
    if (!(await this.slices.waitForSync(signal))) return;
    proxy.onSlicesSynced();
  }

  /** Stops informers, the runner and the metrics endpoint; the kernel rules stay (use --cleanup to remove them). */
  async stop(): Promise<void> {
    await Promise.all(this.stoppers.map((s) => s.stop()));
    this.stoppers = [];
    await this.proxy?.stop();
    if (this.httpServer !== undefined) await new Promise<void>((r) => this.httpServer!.close(() => r()));
    await this.health?.close();
  }

  private async serveMetrics(bind: string): Promise<void> {
    const i = bind.lastIndexOf(':');
    const host = bind.slice(0, i) || '127.0.0.1';
    const port = Number(bind.slice(i + 1));
    this.httpServer = http.createServer((req, res) => {
      if (req.url === '/metrics') {
        void this.metrics.registry.metrics().then((text) => {
          res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType });
          res.end(text);
        });
      } else if (req.url === '/healthz' || req.url === '/livez') {
        // Like upstream's healthz: unhealthy until the first sync has programmed the rules.
        const ok = this.proxy?.last !== undefined;
        res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' });
        res.end(ok ? 'ok' : 'not synced yet');
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve, reject) => {
      this.httpServer!.once('error', reject);
      this.httpServer!.listen(port, host, () => resolve());
    });
    const a = this.httpServer.address() as AddressInfo;
    this.metricsURL = `http://${a.address}:${a.port}`;
  }
}
