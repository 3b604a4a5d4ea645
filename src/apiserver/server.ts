/**
 * The API server: stores for every resource over one Storage (or a routed
 * set), the admission chain, the handler chain, and the built-in lifecycle
 * (system namespaces, the `kubernetes` Service, namespace cleanup, default
 * ServiceAccounts, Service IP and port allocation).
 */
import { createServer, type Server } from 'node:http';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { BOOTSTRAP_TOKEN_NAMESPACE, CONVERTED_RESOURCES, RESOURCES, type ResourceInfo } from '../api/index.js';
import { selectableFieldGetters } from '../api/index.js';
import { RealClock, type Clock } from '../clock/index.js';
import { DirectObjectStorage, type Indexer, type Storage } from '../storage/index.js';
import { AdmissionChain } from './admission/chain.js';
import { withAudit, withFailedAuthenticationAudit } from './filters/audit.js';
import {
  BootstrapTokenSecrets,
  bootstrapTokenAuthenticator,
  serveSelfSubjectReview,
  serveTokenReview,
  serviceAccountTokenAuthenticator,
  type TokenAuthenticator,
} from './authentication/index.js';
import { withAuthentication } from './filters/authentication.js';
import { AuditMetrics, Auditor, PolicyRuleEvaluator, type AuditConfig } from './audit/index.js';
import { BodyBudget, decodeBody } from './body.js';
import { withAuthorization } from './filters/authorization.js';
import { withImpersonation } from './filters/impersonation.js';
import {
  alwaysAllow,
  Graph,
  NodeAuthorizer,
  podGraphPopulator,
  pvGraphPopulator,
  privilegedGroups,
  RBACAuthorizer,
  serveSelfSubjectRulesReview,
  serveSubjectAccessReview,
  union,
  type Authorizer,
} from './authorization/index.js';
import { reconcileBootstrapPolicy } from './controllers/rbac_bootstrap.js';
import { StoreInformer, type StoreInformerHandler } from './controllers/store_informer.js';
import type { Obj } from './object.js';
import { withProbabilisticGoaway } from './filters/goaway.js';
import { namespaceLifecycle } from './admission/namespace_lifecycle.js';
import { nodeRestriction } from './admission/node_restriction.js';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './admission/certificates.js';
import { rbacEscalation } from './admission/rbac_escalation.js';
import { defaultTolerationSeconds, priorityAdmission, serviceAccountAdmission } from './admission/pod_plugins.js';
import { limitRanger } from './admission/limit_ranger.js';
import { NamespaceObjectCache } from './admission/namespace_cache.js';
import { resourceQuotaAdmission } from './admission/resource_quota.js';
import { defaultStorageClassAdmission, storageObjectInUseProtection } from './admission/storage_plugins.js';
import { bootstrap } from './controllers/bootstrap.js';
import { NamespaceController } from './controllers/namespace_controller.js';
import type { ServerServices } from './endpoints/context.js';
import { OpenWatches } from './endpoints/open_watches.js';
import { serveResource } from './endpoints/router.js';
import { MaxInFlight } from './filters/max_inflight.js';
import { withBodyReadAhead } from './filters/read_ahead.js';
import { withTimeout } from './filters/timeout.js';
import { WatchLimiter, withWatchLimit } from './filters/watch_limit.js';
import { ConnectionLimiter, guardConnections } from './connection_limit.js';
import {
  answerClientError,
  DEFAULT_MAX_BUFFERED_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_WATCHES_PER_USER,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  socketLimits,
  UPLOAD_WINDOW_PER_STREAM_BYTES,
} from './serving_limits.js';
import { withPriorityAndFairness } from './filters/priority_and_fairness.js';
import {
  APFController,
  dumpPriorityLevels,
  dumpQueues,
  ensureBootstrapConfiguration,
  FlowControlMetrics,
  isMandatory,
  restoreMandatory,
  type FlowControlStores,
  type ResourceStats,
} from './flowcontrol/index.js';
import type { RequestInfo } from './request_info.js';
import { serveBodylessGets } from './http2_streams.js';
import { buildChain, toListener, withMaxInFlight, withMetrics, type Handler } from './handler_chain.js';
import type { SlowRequestLog } from './request_trace.js';
import { ApiServerMetrics } from './metrics.js';
import { serveDiscovery, serveHealth, serveMisc, serveNotFound } from './nonresource.js';
import { serveStorageMaintenance } from './storage_maintenance.js';
import { serveFailpoints } from './debug_failpoints.js';
import { serveOpenAPI } from './openapi.js';
import { serveOpenIDMetadata } from './openid_metadata.js';
import { generateSigningKey, ServiceAccountTokenIssuer, type SigningKey } from './serviceaccount/index.js';
import { IPAllocator, PortAllocator } from './registry/ipallocator.js';
import { definitionFor, serviceAllocations } from './registry/index.js';
import { convertedStorage } from './registry/converted_storage.js';
import { gvrKey } from './endpoints/context.js';
import { StoredOffsets } from './registry/allocator_storage.js';
import { AllocationRepair } from './controllers/allocation_repair.js';
import { LeaseEndpointReconciler } from './controllers/lease_endpoint_reconciler.js';
import type { Strategy, StrategyConfig } from './registry/strategy.js';
import { CustomResources } from './customresource/registry.js';
import { versionedStorage } from './customresource/version_storage.js';
import { CRDController } from './controllers/crd_controller.js';
import { GenericStore } from './registry/store.js';
import { instrumentStorage } from './storage_metrics.js';
import {
  CacherRegistry,
  parseWatchCacheSizes,
  shouldDelegate,
  WatchCacheMemoryBudget,
} from '../storage/cacher/index.js';
import { registerCacheMetrics } from './cache_metrics.js';

/**
 * The fields the watch cache indexes: spec.nodeName for pods (each kubelet watches its own), metadata.name for
 * single-object watches, and status.phase for pods, which no lookup uses: the scheduler watches every pod with
 * `status.phase!=Succeeded,status.phase!=Failed`, and with the phase kept beside each entry the cache tests that
 * selector on every pod event without decoding the pod, as upstream's cacher keeps each object's fields.
 */
function indexersFor(resource: string): Indexer[] {
  const name: Indexer = {
    name: 'metadata.name',
    path: ['metadata', 'name'],
    fn: (o) => String((o as { metadata?: { name?: string } }).metadata?.name ?? ''),
  };
  if (resource !== 'pods') return [name];
  return [
    {
      name: 'spec.nodeName',
      path: ['spec', 'nodeName'],
      fn: (o) => String((o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ''),
      shared: true,
    },
    name,
    {
      name: 'status.phase',
      path: ['status', 'phase'],
      fn: selectableFieldGetters('pods')['status.phase']!,
      shared: true,
    },
  ];
}

/** The API server's settings; every default is upstream's. */
export interface ApiServerOptions {
  storage: Storage;
  clock?: Clock;
  /** --max-requests-inflight (400). */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight (200). */
  maxMutatingRequestsInflight?: number;
  /** --enable-priority-and-fairness (true): API Priority and Fairness instead of max-in-flight. */
  enablePriorityAndFairness?: boolean;
  /** --request-timeout (60 s): the deadline of every non-long-running request (0: none). */
  requestTimeoutMs?: number;
  /** --max-watches-per-user (kscale's, 5000; 0: no cap): concurrent watches one user may hold. */
  maxWatchesPerUser?: number;
  /** --max-connections (kscale's, 15000; 0: no cap): open connections before new ones get 429 and are closed. */
  maxConnections?: number;
  /** --max-buffered-body-bytes (kscale's, 512 MiB; 0: no cap): request body bytes buffered at once before 429. */
  maxBufferedBodyBytes?: number;
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
  /** --watch-cache-max-bytes: the watch cache's memory watermark, shared by every resource; 0 or unset: none. */
  watchCacheMaxBytes?: number;
  /** --service-account-issuer (https://kubernetes.default.svc.cluster.local here; upstream requires the flag). */
  serviceAccountIssuer?: string;
  /** --service-account-signing-key-file, loaded; a fresh in-memory key when absent. */
  serviceAccountSigningKey?: SigningKey;
  /** --service-account-max-token-expiration in seconds (0: no maximum, upstream's default). */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** --api-audiences: the audiences of a TokenRequest that names none (default: the issuer). */
  apiAudiences?: string[];
  /** What the secure port serves with; without it only the plain-HTTP listener exists. */
  secureServing?: SecureServingOptions;
  /** --anonymous-auth (true): requests over TLS without credentials are system:anonymous. */
  anonymousAuth?: boolean;
  /** --token-auth-file's authenticator (tokenFileAuthenticator), tried before ServiceAccount tokens. */
  tokenFile?: TokenAuthenticator;
  /** --enable-bootstrap-token-auth (false): kube-system's bootstrap token Secrets authenticate, after ServiceAccount tokens. */
  enableBootstrapTokenAuth?: boolean;
  /** --authorization-mode (Node,RBAC, as kubeadm sets it): Node, RBAC, AlwaysAllow; system:masters is always allowed, as upstream. */
  authorizationModes?: string[];
  /** --audit-policy-file and its log backend; without it audit is off and its filters are not in the chain. */
  audit?: AuditConfig;
  /** Where requests of 500 ms or longer are logged with their steps (upstream's utiltrace); none without it. */
  slowRequests?: SlowRequestLog;
}

/** The secure port's certificates and HTTP/2 settings. */
export interface SecureServingOptions {
  /** The serving certificate (PEM, chain allowed) and its key (--tls-cert-file, --tls-private-key-file). */
  cert: string;
  key: string;
  /** --client-ca-file: the CA bundle (PEM) that client certificates are verified against. */
  clientCA: string;
  /** --http2-max-streams-per-connection (1000, kube-apiserver's). */
  http2MaxStreamsPerConnection?: number;
  /** --goaway-chance (0): the probability of a GOAWAY after an HTTP/2 request. */
  goawayChance?: number;
}

/** A running (or ready to listen) API server. */
export class ApiServer {
  readonly metrics = new ApiServerMetrics();
  readonly stores = new Map<string, GenericStore>();
  /** The stores of served versions that are not the storage version (autoscaling/v1), by group/version/resource. */
  readonly convertedStores = new Map<string, GenericStore>();
  readonly clock: Clock;
  /** Signs ServiceAccount tokens and serves their OIDC discovery documents. */
  readonly tokenIssuer: ServiceAccountTokenIssuer;
  private readonly http: Server;
  /** The union of --authorization-mode's authorizers, after the system:masters check. */
  private readonly authorizer: Authorizer;
  private readonly rbac = new RBACAuthorizer();
  private readonly informers: StoreInformer[] = [];
  private readonly https: Http2SecureServer | undefined;
  /** The secure port's connections, TLS or HTTP/2, for shutdown. */
  private readonly secureSockets = new Set<Socket>();
  /** The secure port's HTTP/2 sessions, told GOAWAY when shutdown begins. */
  private readonly http2Sessions = new Set<ServerHttp2Session>();
  private readonly nsController: NamespaceController;
  /** The resources established CRDs serve, and the controller that establishes and finalizes them. */
  readonly customResources: CustomResources;
  private readonly crdController: CRDController;
  private readonly cfg: StrategyConfig;
  private readonly allocationRepair: AllocationRepair;
  private endpointReconciler: LeaseEndpointReconciler | undefined;
  private ready = false;
  /** Set when shutdown begins: responses close their connections so clients reconnect elsewhere. */
  private shuttingDown = false;
  private readonly openWatches: OpenWatches;
  /** What the stores write to: the watch cache over storage, or storage itself with --watch-cache=false. */
  readonly storage: Storage;
  private readonly cache: CacherRegistry | undefined;
  private readonly auditor: Auditor | undefined;
  /** API Priority and Fairness, unless --enable-priority-and-fairness=false. */
  readonly apf: APFController | undefined;
  private apfEnsureTimer: { cancel(): void } | undefined;

  constructor(readonly opts: ApiServerOptions) {
    this.clock = opts.clock ?? new RealClock();
    this.openWatches = new OpenWatches(this.clock);
    // Each resource's reads of storage itself, timed in etcd_request_duration_seconds under its name.
    const quorum = new Map(
      RESOURCES.map((r) => [r.resource, instrumentStorage(opts.storage, this.metrics, r.resource)]),
    );
    this.cache =
      opts.watchCache === false
        ? undefined
        : new CacherRegistry({
            storage: opts.storage,
            resources: RESOURCES.map((r) => ({
              prefix: r.storagePrefix,
              resource: r.group === '' ? r.resource : `${r.resource}.${r.group}`,
              indexers: indexersFor(r.resource),
              readStorage: quorum.get(r.resource)!,
            })),
            watchCacheSizes: parseWatchCacheSizes(opts.watchCacheSizes ?? ''),
            defaults: {
              clock: this.clock,
              ...((opts.watchCacheMaxBytes ?? 0) > 0
                ? { memoryBudget: new WatchCacheMemoryBudget(opts.watchCacheMaxBytes!) }
                : {}),
            },
          });
    this.storage = this.cache ?? opts.storage;
    if (this.cache !== undefined) registerCacheMetrics(this.metrics, this.cache);
    // The allocators' used sets live in storage (compare-and-swap), exact with several servers over one etcd.
    const ipRange = opts.serviceClusterIPRange ?? '10.96.0.0/12';
    const portRange = opts.serviceNodePortRange ?? '30000-32767';
    const ranges = { ips: '/registry/ranges/serviceips', ports: '/registry/ranges/servicenodeports' };
    this.cfg = {
      eventTTLSeconds: opts.eventTTLSeconds ?? 3600,
      serviceIPs: new IPAllocator(ipRange, (n) => new StoredOffsets(opts.storage, ranges.ips, n, ipRange)),
      nodePorts: new PortAllocator(portRange, (n) => new StoredOffsets(opts.storage, ranges.ports, n, portRange)),
    };
    const { serviceIPs, nodePorts } = this.cfg;
    this.allocationRepair = new AllocationRepair({
      storage: opts.storage,
      listServices: async () => (await this.stores.get('services')!.list({})).items.map((i) => i.obj),
      clock: this.clock,
      targets: [
        {
          key: ranges.ips,
          size: serviceIPs.count,
          range: ipRange,
          offsetsOf: (svc) =>
            serviceAllocations(svc)
              .ips.filter((ip) => serviceIPs.contains(ip))
              .map((ip) => serviceIPs.offsetOf(ip)),
        },
        {
          key: ranges.ports,
          size: nodePorts.count,
          range: portRange,
          offsetsOf: (svc) =>
            serviceAllocations(svc)
              .ports.filter((p) => nodePorts.contains(p))
              .map((p) => p - nodePorts.min),
        },
      ],
    });
    for (const info of RESOURCES) {
      const store = this.newStore(info, definitionFor(info).strategy(info, this.cfg), quorum.get(info.resource)!);
      this.stores.set(info.resource, store);
    }
    for (const info of CONVERTED_RESOURCES) this.convertedStores.set(gvrKey(info), this.newConvertedStore(info));
    this.customResources = new CustomResources({
      newStore: (info, strategy, storedAPIVersion) => {
        const name = `${info.resource}.${info.group}`;
        const reads = instrumentStorage(opts.storage, this.metrics, name);
        this.cache?.addResource({
          prefix: info.storagePrefix,
          resource: name,
          indexers: indexersFor(''),
          readStorage: reads,
        });
        if (storedAPIVersion === undefined) return this.newStore(info, strategy, reads);
        // Another served version: apiVersion rewritten both ways over the storage version's keys, read uncached.
        const served = `${info.group}/${info.version}`;
        const convert = (s: Storage): Storage => versionedStorage(s, info.storagePrefix, storedAPIVersion, served);
        return new GenericStore(info, strategy, {
          storage: convert(instrumentStorage(this.storage, this.metrics, name)),
          quorum: convert(reads),
          objects: new DirectObjectStorage({
            storage: convert(reads),
            resourcePrefix: info.storagePrefix,
            indexers: indexersFor(''),
          }),
        });
      },
      dropCache: async (prefix) => this.cache?.removeResource(prefix),
    });
    // The LimitRanger and ResourceQuota plugins read these, fed by in-server informers, as upstream's listers.
    const limitRanges = new NamespaceObjectCache();
    const quotas = new NamespaceObjectCache();
    this.informers.push(
      new StoreInformer(this.stores.get('limitranges')!, this.storage, this.clock, limitRanges),
      new StoreInformer(this.stores.get('resourcequotas')!, this.storage, this.clock, quotas),
    );
    const admission = new AdmissionChain([
      namespaceLifecycle(
        () => this.stores.get('namespaces')!,
        (r) => RESOURCES.find((x) => x.resource === r)?.namespaced === false,
      ),
      serviceAccountAdmission,
      nodeRestriction((r) => this.stores.get(r)!),
      defaultTolerationSeconds(),
      priorityAdmission(() => this.stores.get('priorityclasses')!),
      certificateApproval(() => this.authorizer),
      certificateSigning(() => this.authorizer),
      certificateSubjectRestriction,
      rbacEscalation({ authorize: (a) => this.authorizer.authorize(a) }, this.rbac),
      defaultStorageClassAdmission(() => this.stores.get('storageclasses')!),
      storageObjectInUseProtection,
      limitRanger(limitRanges),
      // Last, as upstream: a charge is written only for a request every other plugin admitted.
      resourceQuotaAdmission(quotas, () => this.stores.get('resourcequotas')!, this.clock),
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
      convertedStores: this.convertedStores,
      admission,
      minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds ?? 1800,
      openWatches: this.openWatches,
      customResources: this.customResources,
    };
    this.authorizer = this.buildAuthorizer(opts.authorizationModes ?? ['Node', 'RBAC']);
    this.apf = opts.enablePriorityAndFairness === false ? undefined : this.buildAPF();
    // The bearer-token authenticators in upstream's order (the token file, ServiceAccount tokens, bootstrap tokens);
    // TokenReview asks the same ones.
    const tokens: TokenAuthenticator[] = [
      ...(opts.tokenFile === undefined ? [] : [opts.tokenFile]),
      serviceAccountTokenAuthenticator({
        issuer: this.tokenIssuer.issuer,
        audiences: this.tokenIssuer.audiences,
        publicKey: this.tokenIssuer.key.publicKey,
        clock: this.clock,
        getObject: (resource, namespace, name) => this.stores.get(resource)!.get(namespace, name),
      }),
      ...this.bootstrapTokenAuthenticators(opts.enableBootstrapTokenAuth === true),
    ];
    const route: Handler = async (req, res, info) => {
      if (info.isResourceRequest) {
        // The reviews are virtual resources of these two groups; every other request skips their awaits.
        if (
          info.apiGroup === 'authentication.k8s.io' &&
          ((await serveSelfSubjectReview(req, res, info)) ||
            (await serveTokenReview(req, res, info, tokens, this.tokenIssuer.audiences)))
        )
          return;
        if (
          info.apiGroup === 'authorization.k8s.io' &&
          ((await serveSubjectAccessReview(req, res, info, this.authorizer)) ||
            // Like upstream's, the Node authorizer cannot list a node's rules: its review is incomplete.
            (await serveSelfSubjectRulesReview(
              req,
              res,
              info,
              this.rbac,
              info.user?.groups.includes('system:nodes') === true,
            )))
        )
          return;
        return serveResource(req, res, info, services);
      }
      if (serveDiscovery(req, res, info, this.customResources.resources())) return;
      if (await serveHealth(res, info, opts.storage, () => this.ready)) return;
      if (await serveStorageMaintenance(req, res, info, opts.storage)) return;
      if (await serveFailpoints(req, res, info, opts.storage)) return;
      if (await serveMisc(res, info, this.metrics, opts.storage)) return;
      if (serveOpenAPI(req, res, info, this.customResources)) return;
      if (serveOpenIDMetadata(res, info, this.tokenIssuer)) return;
      if (this.apf !== undefined && serveAPFDebug(res, info, this.apf)) return;
      serveNotFound(res);
    };
    const limiter = new MaxInFlight(
      opts.maxRequestsInflight ?? 400,
      opts.maxMutatingRequestsInflight ?? 200,
      this.metrics,
    );
    if (opts.audit !== undefined) {
      const metrics = new AuditMetrics(this.metrics.registry);
      this.auditor = new Auditor({
        evaluator: new PolicyRuleEvaluator(opts.audit.policy),
        backend: opts.audit.backend(metrics),
        metrics,
        clock: this.clock,
        decodeBody,
      });
    }
    const audit = this.auditor;
    const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const chain = buildChain(route, [
      withMetrics(this.metrics, opts.slowRequests),
      withTimeout(requestTimeoutMs),
      ...(audit === undefined ? [] : [withFailedAuthenticationAudit(audit)]),
      withAuthentication({ anonymous: opts.anonymousAuth ?? true, tokens, clock: this.clock }),
      ...(audit === undefined ? [] : [withAudit(audit)]),
      withImpersonation(this.authorizer),
      withProbabilisticGoaway(opts.secureServing?.goawayChance ?? 0),
      withWatchLimit(new WatchLimiter(opts.maxWatchesPerUser ?? DEFAULT_MAX_WATCHES_PER_USER)),
      withBodyReadAhead(new BodyBudget(opts.maxBufferedBodyBytes ?? DEFAULT_MAX_BUFFERED_BODY_BYTES)),
      this.apf === undefined ? withMaxInFlight(limiter) : withPriorityAndFairness(this.apf),
      withAuthorization(this.authorizer),
    ]);
    const serve = guardConnections(toListener(chain));
    // Like Go's Server.Shutdown disabling keep-alives: once shutting down, each HTTP/1.1 connection ends after its
    // response, so a client through a load balancer reconnects to another server instead of being reset later.
    const listener: typeof serve = (req, res) => {
      if (this.shuttingDown && req.httpVersionMajor === 1) res.setHeader('Connection', 'close');
      serve(req, res);
    };
    this.http = createServer(socketLimits(requestTimeoutMs), listener);
    this.http.on('clientError', answerClientError);
    this.https =
      opts.secureServing === undefined ? undefined : this.secureServer(opts.secureServing, listener, requestTimeoutMs);
    const connections = new ConnectionLimiter(opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    connections.watch(this.http, false);
    if (this.https !== undefined) connections.watch(this.https, true);
    this.nsController = new NamespaceController(this.storage, this.stores, this.clock, () =>
      this.customResources.storageStores(),
    );
    this.crdController = new CRDController(
      this.stores.get('customresourcedefinitions')!,
      this.storage,
      this.customResources,
      this.clock,
    );
  }

  /** A resource's store over the watch cache (or, with --watch-cache=false or its size 0, storage read directly). */
  /** The store of a served version that is not the storage version: converted both ways, read uncached. */
  private newConvertedStore(info: ResourceInfo): GenericStore {
    const def = definitionFor(info);
    const conversion = def.conversions?.[info.version];
    if (conversion === undefined)
      throw new Error(`no conversion serves ${info.resource}.${info.group}/${info.version}`);
    const convert = (s: Storage): Storage => convertedStorage(s, info.storagePrefix, conversion);
    const reads = instrumentStorage(this.opts.storage, this.metrics, info.resource);
    return new GenericStore(info, def.strategy(info, this.cfg), {
      storage: convert(instrumentStorage(this.storage, this.metrics, info.resource)),
      quorum: convert(reads),
      objects: new DirectObjectStorage({
        storage: convert(reads),
        resourcePrefix: info.storagePrefix,
        indexers: indexersFor(info.resource),
      }),
    });
  }

  private newStore(info: ResourceInfo, strategy: Strategy, reads: Storage): GenericStore {
    return new GenericStore(info, strategy, {
      storage: instrumentStorage(
        this.storage,
        this.metrics,
        info.custom === true ? `${info.resource}.${info.group}` : info.resource,
      ),
      quorum: reads,
      objects:
        this.cache?.cacherFor(info.storagePrefix) ??
        new DirectObjectStorage({
          storage: reads,
          resourcePrefix: info.storagePrefix,
          indexers: indexersFor(info.resource),
        }),
    });
  }

  /**
   * HTTPS with HTTP/2 (ALPN h2, HTTP/1.1 fallback), as kube-apiserver serves kubectl and client-go.
   * Client certificates are requested and verified against the client CA; one that does not verify
   * ends the connection right after the handshake, before any request is read.
   */
  private secureServer(
    o: SecureServingOptions,
    listener: ReturnType<typeof toListener>,
    requestTimeoutMs: number,
  ): Http2SecureServer {
    const maxStreams = o.http2MaxStreamsPerConnection ?? 1000;
    const server = createSecureServer(
      {
        cert: o.cert,
        key: o.key,
        ca: o.clientCA,
        requestCert: true,
        rejectUnauthorized: false,
        allowHTTP1: true,
        // A client that stalls mid-handshake is dropped after 10 s (Go's TLSHandshakeTimeout) instead of Node's 120 s.
        handshakeTimeout: 10_000,
        settings: {
          maxConcurrentStreams: maxStreams,
          maxHeaderListSize: MAX_HEADER_BYTES,
          initialWindowSize: UPLOAD_WINDOW_PER_STREAM_BYTES,
          maxFrameSize: UPLOAD_WINDOW_PER_STREAM_BYTES,
        },
      },
      listener as unknown as Parameters<typeof createSecureServer>[1],
    );
    serveBodylessGets(server, listener);
    // The HTTP/1.1 fallback reads these off the server, as an http.Server would its options.
    Object.assign(server, socketLimits(requestTimeoutMs));
    server.on('clientError', answerClientError);
    server.on('secureConnection', (socket: TLSSocket) => {
      const peer = socket.getPeerCertificate();
      if (!socket.authorized && peer !== null && Object.keys(peer).length > 0) {
        socket.destroy();
        return;
      }
      this.secureSockets.add(socket);
      socket.once('close', () => this.secureSockets.delete(socket));
    });
    // A failed handshake is the client's problem; the socket is already gone.
    server.on('session', (session: ServerHttp2Session) => {
      // As kube-apiserver's MaxUploadBufferPerConnection: one upload window per stream it may open. Node's default
      // (HTTP/2's 64 KiB for the whole connection) held a client's concurrent request bodies to one window per
      // round trip.
      session.setLocalWindowSize(UPLOAD_WINDOW_PER_STREAM_BYTES * maxStreams);
      this.http2Sessions.add(session);
      session.once('close', () => this.http2Sessions.delete(session));
    });
    server.on('tlsClientError', () => undefined);
    server.on('sessionError', () => undefined);
    return server;
  }

  /** The bootstrap token authenticator over an informer of kube-system's Secrets, when enabled. */
  private bootstrapTokenAuthenticators(enabled: boolean): TokenAuthenticator[] {
    if (!enabled) return [];
    const secrets = new BootstrapTokenSecrets();
    this.informers.push(
      new StoreInformer(this.stores.get('secrets')!, this.storage, this.clock, secrets, BOOTSTRAP_TOKEN_NAMESPACE),
    );
    return [bootstrapTokenAuthenticator(secrets, this.clock)];
  }

  /** The APF controller, fed by informers on both kinds; a deleted mandatory object is written back at once. */
  private buildAPF(): APFController {
    const opts = this.opts;
    const fcStores = this.flowControlStores();
    const apf = new APFController({
      clock: this.clock,
      serverConcurrencyLimit: (opts.maxRequestsInflight ?? 400) + (opts.maxMutatingRequestsInflight ?? 200),
      // Queued requests wait at most a quarter of the request timeout, as upstream.
      requestTimeoutMs: opts.requestTimeoutMs || DEFAULT_REQUEST_TIMEOUT_MS,
      stats: this.resourceStats(),
      metrics: new FlowControlMetrics(this.metrics.registry),
      writeDangling: async (name, condition) => {
        await fcStores.flowSchemas.guaranteedUpdate(
          undefined,
          name,
          (cur) => {
            if (cur === null) return Promise.reject(new Error('gone'));
            const conditions = ((cur.status as { conditions?: unknown[] } | undefined)?.conditions ?? []).filter(
              (c) => (c as { type?: string }).type !== 'Dangling',
            );
            return { ...cur, status: { ...(cur.status as object), conditions: [...conditions, condition] } };
          },
          { allowCreate: false, dryRun: false },
        );
      },
    });
    const restoring = (
      kind: 'FlowSchema' | 'PriorityLevelConfiguration',
      h: StoreInformerHandler,
    ): StoreInformerHandler => ({
      ...h,
      delete: (o) => {
        h.delete(o);
        const name = String((o.metadata as { name?: string } | undefined)?.name ?? '');
        if (isMandatory(name)) restoreMandatory(fcStores, kind, name, this.clock).catch(() => undefined);
      },
    });
    this.informers.push(
      new StoreInformer(
        fcStores.priorityLevels,
        this.storage,
        this.clock,
        restoring('PriorityLevelConfiguration', apf.priorityLevelHandler),
      ),
      new StoreInformer(fcStores.flowSchemas, this.storage, this.clock, restoring('FlowSchema', apf.flowSchemaHandler)),
    );
    return apf;
  }

  private flowControlStores(): FlowControlStores {
    return {
      flowSchemas: this.stores.get('flowschemas')!,
      priorityLevels: this.stores.get('prioritylevelconfigurations')!,
    };
  }

  /** Object counts from the watch cache, and the cacher's own rule for when a list goes to storage. */
  private resourceStats(): Omit<ResourceStats, 'watchCount'> {
    const prefixes = new Map(RESOURCES.map((r) => [`${r.group}/${r.resource}`, r.storagePrefix]));
    const cacher = (info: RequestInfo) => {
      const prefix = prefixes.get(`${info.apiGroup}/${info.resource}`);
      return prefix === undefined ? undefined : this.cache?.cacherFor(prefix);
    };
    return {
      objectCount: (info) => cacher(info)?.objectCount,
      listFromStorage: (info) => {
        const q = info.query;
        if (q.has('continue')) return true;
        const rv = q.get('resourceVersion');
        const n = rv === null || rv === '' ? undefined : Number(rv);
        const read =
          n === undefined ? {} : q.get('resourceVersionMatch') === 'Exact' ? { revision: n } : { minRevision: n };
        return shouldDelegate('list', read, cacher(info));
      },
    };
  }

  private buildAuthorizer(modes: string[]): Authorizer {
    const chain: Authorizer[] = [privilegedGroups('system:masters')];
    const s = (r: string): GenericStore => this.stores.get(r)!;
    for (const m of modes) {
      if (m === 'AlwaysAllow') chain.push(alwaysAllow);
      else if (m === 'RBAC') chain.push(this.rbac);
      else if (m === 'Node') {
        // The graph of node <- pod <- referenced objects, fed by an in-server pod informer. Without a secure
        // port nothing is ever authorized, so the lab's plain-HTTP server pays for no pod informer.
        const graph = new Graph();
        chain.push(new NodeAuthorizer(graph));
        if (this.opts.secureServing !== undefined) {
          this.informers.push(new StoreInformer(s('pods'), this.storage, this.clock, podGraphPopulator(graph)));
          this.informers.push(
            new StoreInformer(s('persistentvolumes'), this.storage, this.clock, pvGraphPopulator(graph)),
          );
        }
      } else throw new Error(`authorization mode ${JSON.stringify(m)} is not supported (AlwaysAllow, Node, RBAC)`);
    }
    if (modes.includes('RBAC')) {
      const roles = (kind: 'ClusterRole' | 'Role') => ({
        replace: (objs: Obj[]) => {
          this.rbac.clearRoles(kind);
          for (const o of objs) this.rbac.putRole(kind, o);
        },
        put: (o: Obj) => this.rbac.putRole(kind, o),
        delete: (o: Obj) => this.rbac.deleteRole(kind, o),
      });
      const bindings = (kind: 'ClusterRoleBinding' | 'RoleBinding') => ({
        replace: (objs: Obj[]) => {
          this.rbac.clearBindings(kind);
          for (const o of objs) this.rbac.putBinding(kind, o);
        },
        put: (o: Obj) => this.rbac.putBinding(kind, o),
        delete: (o: Obj) => this.rbac.deleteBinding(kind, o),
      });
      this.informers.push(
        new StoreInformer(s('clusterroles'), this.storage, this.clock, roles('ClusterRole')),
        new StoreInformer(s('roles'), this.storage, this.clock, roles('Role')),
        new StoreInformer(s('clusterrolebindings'), this.storage, this.clock, bindings('ClusterRoleBinding')),
        new StoreInformer(s('rolebindings'), this.storage, this.clock, bindings('RoleBinding')),
      );
    }
    return union(chain);
  }

  /** Restores allocations, creates the system objects and starts the built-in controllers. */
  async start(): Promise<void> {
    await this.cache?.ready();
    // Like upstream's repair controllers' first pass: the stored ranges hold what every stored Service holds.
    await this.allocationRepair.start();
    await this.nsController.start();
    await bootstrap(this.stores, this.cfg, this.clock);
    await reconcileBootstrapPolicy(this.stores, this.clock);
    if (this.apf !== undefined) {
      // Like upstream's APF bootstrap post-start hook: a pass now, then one a minute.
      const stores = this.flowControlStores();
      await ensureBootstrapConfiguration(stores, this.clock);
      this.apfEnsureTimer = this.clock.setInterval(
        () => void ensureBootstrapConfiguration(stores, this.clock).catch(() => undefined),
        60_000,
      );
    }
    for (const i of this.informers) await i.start();
    this.apf?.start();
    await this.crdController.start();
    this.ready = true;
  }

  /**
   * Starts upstream's lease endpoint reconciler (--endpoint-reconciler-type=lease): this server's
   * `/masterleases/<advertiseAddress>` key and the `kubernetes` endpoints listing every live server.
   */
  async startEndpointReconciler(advertiseAddress: string, port: number, ttlSeconds?: number): Promise<void> {
    this.endpointReconciler = new LeaseEndpointReconciler({
      storage: this.opts.storage,
      endpoints: this.stores.get('endpoints')!,
      endpointSlices: this.stores.get('endpointslices')!,
      clock: this.clock,
      advertiseAddress,
      port,
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
    });
    await this.endpointReconciler.start().catch((err: unknown) => {
      process.stderr.write(`kscale server: endpoint reconciler: ${(err as Error).message}; retrying\n`);
    });
  }

  /** Listens on host:port (port 0 picks a free one); resolves with the bound port. */
  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    return listenOn(this.http, port, host);
  }

  /** Listens for HTTPS on host:port (port 0 picks a free one); resolves with the bound port. */
  async listenSecure(port: number, host = '127.0.0.1'): Promise<number> {
    if (this.https === undefined) throw new Error('kscale server: no secure serving configured');
    return listenOn(this.https, port, host);
  }

  /**
   * Graceful shutdown, like kube-apiserver's: /readyz fails at once and this server leaves the `kubernetes`
   * endpoints, then it goes on serving for `delayMs` (--shutdown-delay-duration) while a load balancer notices,
   * every response closing its connection (HTTP/2 sessions get GOAWAY); then it stops accepting connections, ends
   * every open watch stream cleanly (clients re-watch elsewhere instead of seeing a reset), lets in-flight
   * requests finish for up to `graceMs`, and closes what is left.
   */
  async close(graceMs = 2_000, delayMs = 0): Promise<void> {
    this.ready = false;
    this.shuttingDown = true;
    const https = this.https;
    const goaway = (session: ServerHttp2Session): void => void session.close();
    https?.on('session', goaway);
    for (const session of this.http2Sessions) session.close();
    // Like upstream's RemoveEndpoints on shutdown: clients stop being sent here before the listeners close.
    await this.endpointReconciler?.stop().catch(() => undefined);
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    this.nsController.stop();
    this.allocationRepair.stop();
    this.apf?.stop();
    this.apfEnsureTimer?.cancel();
    this.crdController.stop();
    for (const i of this.informers) i.stop();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    const closedSecure =
      https === undefined ? Promise.resolve() : new Promise<void>((resolve) => https.close(() => resolve()));
    this.openWatches.stopAll();
    this.http.closeIdleConnections();
    const deadline = performance.now() + graceMs;
    while (this.openWatches.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    this.openWatches.close();
    const idle = setInterval(() => this.http.closeIdleConnections(), 50);
    const timer = setTimeout(
      () => {
        this.http.closeAllConnections();
        for (const s of this.secureSockets) s.destroy();
      },
      Math.max(0, deadline - performance.now()),
    );
    // HTTP/2 sessions got GOAWAY above (their streams finish); HTTP/1.1-over-TLS sockets go once idle or at the deadline.
    await Promise.all([closed, closedSecure]);
    clearInterval(idle);
    clearTimeout(timer);
    await this.auditor?.shutdown();
  }
}

function listenOn(server: Server | Http2SecureServer, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Serves /debug/api_priority_and_fairness/dump_priority_levels and dump_queues as text. */
function serveAPFDebug(res: import('node:http').ServerResponse, info: RequestInfo, apf: APFController): boolean {
  const dump =
    info.path === '/debug/api_priority_and_fairness/dump_priority_levels'
      ? dumpPriorityLevels
      : info.path === '/debug/api_priority_and_fairness/dump_queues'
        ? dumpQueues
        : undefined;
  if (dump === undefined || info.verb !== 'get') return false;
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(dump(apf));
  return true;
}
