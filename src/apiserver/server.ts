/**
 * The API server: stores for every resource over one Storage (or a routed
 * set), the admission chain, the handler chain, and the built-in lifecycle
 * (system namespaces, the `kubernetes` Service, namespace cleanup, default
 * ServiceAccounts, Service IP and port allocation).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESOURCES } from '../api/registry.js';
import { RealClock, type Clock } from '../clock/index.js';
import type { Storage } from '../storage/index.js';
import { AdmissionChain } from './admission/chain.js';
import { namespaceLifecycle } from './admission/namespace_lifecycle.js';
import { defaultTolerationSeconds, priorityAdmission, serviceAccountAdmission } from './admission/pod_plugins.js';
import { bootstrap } from './controllers/bootstrap.js';
import { NamespaceController } from './controllers/namespace_controller.js';
import type { ServerServices } from './endpoints/context.js';
import { serveResource } from './endpoints/router.js';
import { MaxInFlight } from './filters/max_inflight.js';
import { buildChain, toListener, withMaxInFlight, withMetrics, type Handler } from './handler_chain.js';
import { ApiServerMetrics } from './metrics.js';
import { serveDiscovery, serveHealth, serveMisc, serveNotFound } from './nonresource.js';
import { serveOpenAPI } from './openapi.js';
import { serveOpenIDMetadata } from './openid_metadata.js';
import { generateSigningKey, ServiceAccountTokenIssuer, type SigningKey } from './serviceaccount/index.js';
import { IPAllocator, PortAllocator } from './registry/ipallocator.js';
import { definitionFor, restoreServiceAllocations } from './registry/index.js';
import type { StrategyConfig } from './registry/strategy.js';
import { GenericStore } from './registry/store.js';
import { instrumentStorage } from './storage_metrics.js';
import { CacherRegistry, parseWatchCacheSizes, type Indexer } from '../storage/cacher/index.js';
import { registerCacheMetrics } from './cache_metrics.js';

/** The fields the watch cache indexes: spec.nodeName for pods (each kubelet watches its own), metadata.name for single-object watches. */
function indexersFor(resource: string): Indexer[] {
  const name: Indexer = { name: 'metadata.name', path: ['metadata', 'name'], fn: (o) => String((o as { metadata?: { name?: string } }).metadata?.name ?? '') };
  if (resource !== 'pods') return [name];
  return [{ name: 'spec.nodeName', path: ['spec', 'nodeName'], fn: (o) => String((o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ''), shared: true }, name];
}

/** The API server's settings; every default is upstream's. */
export interface ApiServerOptions {
  storage: Storage;
  clock?: Clock;
  /** --max-requests-inflight (400). */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight (200). */
  maxMutatingRequestsInflight?: number;
  /** --min-request-timeout (1800 s): watches without timeoutSeconds last [min, 2*min). */
  minRequestTimeoutSeconds?: number;
  /** --service-cluster-ip-range (10.96.0.0/12 here; upstream has no default). */
  serviceClusterIPRange?: string;
  /** --service-node-port-range (30000-32767). */
  serviceNodePortRange?: string;
  /** --event-ttl (1 h). */
  eventTTLSeconds?: number;
  /** --watch-cache (true): serve lists, gets with a resourceVersion, and watches from memory. */
  watchCache?: boolean;
  /** --watch-cache-sizes: `resource[.group]#0` turns the cache off for that resource. */
  watchCacheSizes?: string;
  /** --service-account-issuer (https://kubernetes.default.svc.cluster.local here; upstream requires the flag). */
  serviceAccountIssuer?: string;
  /** --service-account-signing-key-file, loaded; a fresh in-memory key when absent. */
  serviceAccountSigningKey?: SigningKey;
  /** --service-account-max-token-expiration in seconds (0: no maximum, upstream's default). */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** --api-audiences: the audiences of a TokenRequest that names none (default: the issuer). */
  apiAudiences?: string[];
}

/** A running (or ready to listen) API server. */
export class ApiServer {
  readonly metrics = new ApiServerMetrics();
  readonly stores = new Map<string, GenericStore>();
  readonly clock: Clock;
  /** Signs ServiceAccount tokens and serves their OIDC discovery documents. */
  readonly tokenIssuer: ServiceAccountTokenIssuer;
  private readonly http: Server;
  private readonly nsController: NamespaceController;
  private readonly cfg: StrategyConfig;
  private ready = false;
  private readonly openWatches = new Set<() => void>();
  /** What the stores write to: the watch cache over storage, or storage itself with --watch-cache=false. */
  readonly storage: Storage;
  private readonly cache: CacherRegistry | undefined;

  constructor(readonly opts: ApiServerOptions) {
    this.clock = opts.clock ?? new RealClock();
    this.cache = opts.watchCache === false ? undefined : new CacherRegistry({
      storage: opts.storage,
      resources: RESOURCES.map((r) => ({ prefix: r.storagePrefix, resource: r.group === '' ? r.resource : `${r.resource}.${r.group}`, indexers: indexersFor(r.resource) })),
      watchCacheSizes: parseWatchCacheSizes(opts.watchCacheSizes ?? ''),
      defaults: { clock: this.clock },
    });
    this.storage = this.cache ?? opts.storage;
    if (this.cache !== undefined) registerCacheMetrics(this.metrics, this.cache);
    this.cfg = {
      eventTTLSeconds: opts.eventTTLSeconds ?? 3600,
      serviceIPs: new IPAllocator(opts.serviceClusterIPRange ?? '10.96.0.0/12'),
      nodePorts: new PortAllocator(opts.serviceNodePortRange ?? '30000-32767'),
    };
    for (const info of RESOURCES) {
      const cacher = this.cache?.cacherFor(info.storagePrefix);
      const store = new GenericStore(info, definitionFor(info).strategy(info, this.cfg), {
        storage: instrumentStorage(this.storage, this.metrics, info.resource),
        quorum: instrumentStorage(opts.storage, this.metrics, info.resource),
        ...(cacher === undefined ? {} : { cacher }),
        cacheIndexes: indexersFor(info.resource).map((i) => i.name),
      });
      this.stores.set(info.resource, store);
    }
    const admission = new AdmissionChain([
      namespaceLifecycle(() => this.stores.get('namespaces')!, (r) => RESOURCES.find((x) => x.resource === r)?.namespaced === false),
      serviceAccountAdmission,
      defaultTolerationSeconds(),
      priorityAdmission(() => this.stores.get('priorityclasses')!),
    ]);
    this.tokenIssuer = new ServiceAccountTokenIssuer({
      key: opts.serviceAccountSigningKey ?? generateSigningKey(),
      ...(opts.serviceAccountIssuer === undefined ? {} : { issuer: opts.serviceAccountIssuer }),
      ...(opts.apiAudiences === undefined ? {} : { audiences: opts.apiAudiences }),
      maxExpirationSeconds: opts.serviceAccountMaxTokenExpirationSeconds ?? 0,
    });
    const services: ServerServices = {
      tokenIssuer: this.tokenIssuer,
      clock: this.clock,
      stores: this.stores,
      admission,
      storageFor: () => this.storage,
      minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds ?? 1800,
      openWatches: this.openWatches,
    };
    const route: Handler = async (req, res, info) => {
      if (info.isResourceRequest) return serveResource(req, res, info, services);
      if (serveDiscovery(req, res, info)) return;
      if (await serveHealth(res, info, opts.storage, () => this.ready)) return;
      if (await serveMisc(res, info, this.metrics, opts.storage)) return;
      if (serveOpenAPI(req, res, info)) return;
      if (serveOpenIDMetadata(res, info, this.tokenIssuer)) return;
      serveNotFound(res);
    };
    const limiter = new MaxInFlight(opts.maxRequestsInflight ?? 400, opts.maxMutatingRequestsInflight ?? 200, this.metrics);
    const chain = buildChain(route, [withMetrics(this.metrics), withMaxInFlight(limiter)]);
    this.http = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, toListener(chain));
    this.http.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
    this.nsController = new NamespaceController(this.storage, this.stores, this.clock);
  }

  /** Restores allocations, creates the system objects and starts the built-in controllers. */
  async start(): Promise<void> {
    await this.cache?.ready();
    const services = await this.stores.get('services')!.list({});
    for (const { obj } of services.items) restoreServiceAllocations(obj, this.cfg);
    await this.nsController.start();
    await bootstrap(this.stores, this.cfg, this.clock);
    this.ready = true;
  }

  /** Listens on host:port (port 0 picks a free one); resolves with the bound port. */
  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    return (this.http.address() as AddressInfo).port;
  }

  /**
   * Graceful shutdown: stop accepting connections, end every open watch stream
   * cleanly (clients re-watch elsewhere instead of seeing a reset), let
   * in-flight requests finish for up to `graceMs`, then close what is left.
   */
  async close(graceMs = 2_000): Promise<void> {
    this.ready = false;
    this.nsController.stop();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    for (const stop of [...this.openWatches]) stop();
    this.http.closeIdleConnections();
    const deadline = Date.now() + graceMs;
    while (this.openWatches.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const idle = setInterval(() => this.http.closeIdleConnections(), 50);
    const timer = setTimeout(() => this.http.closeAllConnections(), Math.max(0, deadline - Date.now()));
    await closed;
    clearInterval(idle);
    clearTimeout(timer);
  }
}
