/**
 * A fleet of hollow kubelets in one process, built so each node costs almost
 * nothing. Joined through CSRs, each node has its own connection (one HTTP/2
 * session for its requests and watches, as a kubelet's). On the shared
 * credential: one keep-alive agent with a bounded socket pool for every short
 * request, one agent for pod watches. Always: one TimerQueue for every periodic loop,
 * staggered joins at --join-rate, and optionally one shared pod watch
 * (spec.nodeName!=) dispatching by node name instead of one watch per node.
 */
import type http from 'node:http';
import {
  DeletedFinalStateUnknown,
  RESOURCES,
  RESTClient,
  SharedInformer,
  TokenBucket,
  listWatchFor,
  newAgent,
  newTransport,
  stripManagedFields,
  type ClientLogger,
  type RestConfig,
  type Stopper,
  type Transport,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';
import { nodeIdentity, type KubeletSettings } from './config.js';
import { FleetMetrics } from './fleet_metrics.js';
import { HollowKubelet } from './hollow_kubelet.js';
import { KubeletServer } from './kubelet_server.js';
import { KUBELET_VERSION } from './node.js';
import { JoinLimiter, NodeJoin } from './node_join.js';
import { PodReferenceManager, type PodReferencesMode } from './pod_references.js';
import { PodStartStats, type PodStartSnapshot } from './pod_start_stats.js';
import { TimerQueue } from './timer_queue.js';
import type { Pod } from '../api/index.js';

/** per-node: a watch per kubelet, as real kubelets do; shared: one watch for the fleet. */
export type PodWatchMode = 'per-node' | 'shared';

/** --bootstrap-kubeconfig: each node joins with its own certificate through a CSR instead of the shared credential. */
export interface FleetJoinOptions {
  /** The bootstrap token's kubeconfig (server, CA, token). */
  bootstrap: RestConfig;
  /** Nodes bootstrapping at once (key, CSR, wait for the certificate). */
  concurrency: number;
  /** Where each node writes kubelet-client-current.pem (the kubelet's --cert-dir); nowhere when absent. */
  certDir?: string;
  /** How long one node's CSR may stay Pending (ms), and how many CSRs it sends before it gives up. */
  pendingTimeoutMs?: number;
  attempts?: number;
}

/** Everything a fleet needs. */
export interface FleetOptions {
  config: RestConfig;
  count: number;
  namePrefix: string;
  /**
   * Index of this fleet's first node (default 0): a fleet process runs nodes firstIndex..firstIndex+count-1, so
   * several processes sharing one name prefix present exactly the nodes, addresses and CIDRs one process would.
   */
  firstIndex?: number;
  /** Nodes joining per second (staggered registration). */
  joinRate: number;
  settings: KubeletSettings;
  podWatch: PodWatchMode;
  /** Per-kubelet kubeAPIQPS/kubeAPIBurst (50/100). */
  qps: number;
  burst: number;
  /**
   * Keep-alive sockets shared by all kubelets' short requests, split evenly between two lanes:
   * node heartbeats (leases, node status) and pod requests.
   */
  maxConnections: number;
  clock: Clock;
  random?: () => number;
  logger: ClientLogger;
  /**
   * Serve the kubelet API (container logs) on each node's InternalIP at this port (upstream's 10250;
   * 0: one ephemeral port chosen on the first node and used for all). Absent: not served.
   */
  kubeletPort?: number;
  /** Join through bootstrap tokens and CSRs, one connection and certificate per node; shared credential when absent. */
  join?: FleetJoinOptions;
  /** Read what pods reference (Secrets, ConfigMaps, ServiceAccount tokens); none when absent. */
  podReferences?: PodReferencesMode;
}

/** Counters summed over the fleet. */
export interface FleetStats {
  count: number;
  registered: number;
  killed: number;
  podWatch: PodWatchMode;
  heartbeat: string;
  requests: number;
  retries: number;
  tooManyRequests: number;
  leaseRenewals: number;
  leaseErrors: number;
  statusSyncs: number;
  statusPatches: number;
  statusErrors: number;
  podsKnown: number;
  podsStarted: number;
  podsCompleted: number;
  podsDeleted: number;
  podErrors: number;
  /** csr (own certificates) or shared (the fleet's credential). */
  join: 'csr' | 'shared';
  /** Nodes holding their own certificate, and certificates issued (first ones and renewals). */
  joined: number;
  joinFailed: number;
  certificates: number;
  /** Per-object Secret and ConfigMap watches open, and ServiceAccount tokens requested. */
  referenceWatches: number;
  referenceWatchesSynced: number;
  serviceAccountTokens: number;
  /** Of those, refreshes before expiry (80% of the lifetime, or 24 h). */
  serviceAccountTokenRefreshes: number;
  /** Kubelets whose own-Node watch (csr mode) has synced. */
  nodeWatchesSynced: number;
  /** The fleet's share of pod startup: start lateness, status PATCH latency, event loop delay (ms). */
  podStart: PodStartSnapshot;
}

const NODE_NAME_INDEX = 'spec.nodeName';

/** host:port of an API server URL, client-go's `host` label. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** N hollow kubelets sharing agents, a timer queue and (optionally) a pod watch. */
export class Fleet {
  readonly kubelets = new Map<string, HollowKubelet>();
  private readonly queue: TimerQueue;
  private readonly random: () => number;
  /** Node heartbeats: leases and node status. */
  private readonly agent: http.Agent;
  /** Pod requests (pod status), in a lane of their own: see the constructor. */
  private readonly podAgent: http.Agent;
  private readonly watchAgent: http.Agent;
  private readonly clients: RESTClient[] = [];
  private readonly startStats = new PodStartStats();
  /** The fleet's /metrics registry: kubelet metrics summed over its nodes. */
  readonly metrics: FleetMetrics;
  private shared: SharedInformer<Pod> | undefined;
  private sharedStop: Stopper | undefined;
  private joins: Promise<void>[] = [];
  private stopped = false;
  private readonly byAddress = new Map<string, HollowKubelet>();
  private kubeletServer: KubeletServer | undefined;
  private readonly nodeJoins = new Map<string, NodeJoin>();
  private readonly references: PodReferenceManager[] = [];
  private readonly joinLimiter: JoinLimiter;
  private bootstrap: RESTClient | undefined;
  private bootstrapTransport: Transport | undefined;
  private joinFailed = 0;

  constructor(private readonly o: FleetOptions) {
    this.random = o.random ?? Math.random;
    this.queue = new TimerQueue(o.clock, this.random);
    // Real kubelets each have their own connection, so one node's lease renewal never delays
    // another node's pod status. Sharing one FIFO pool would: under load, pod status PATCHes
    // queued behind thousands of lease renewals, adding seconds to pod startup that no real
    // cluster has. Two lanes keep that artifact out of the pod startup figures; leases, which
    // tolerate seconds (40 s lease duration), absorb the fleet's queueing instead.
    const podLane = Math.max(1, Math.ceil(o.maxConnections / 2));
    this.agent = pooledAgent(o.config, Math.max(1, o.maxConnections - podLane));
    this.podAgent = pooledAgent(o.config, podLane);
    this.watchAgent = pooledAgent(o.config, Infinity);
    this.joinLimiter = new JoinLimiter(Math.max(1, o.join?.concurrency ?? 1));
    this.metrics = new FleetMetrics(hostOf(o.config.host), {
      registered: () => {
        let n = 0;
        for (const k of this.kubelets.values()) if (k.registered) n++;
        return n;
      },
      runningPods: () => {
        let n = 0;
        for (const k of this.kubelets.values()) if (!k.killed) n += k.pods.running;
        return n;
      },
    });
    if (o.join !== undefined) {
      // One connection (an HTTP/2 session over TLS) for the fleet's bootstrap CSRs, closed once every node joined.
      this.bootstrapTransport = newTransport(o.join.bootstrap, { clock: o.clock, random: this.random });
      this.bootstrap = new RESTClient(
        { ...o.join.bootstrap, userAgent: `kubelet/${KUBELET_VERSION} (linux/amd64) kscale-hollow/bootstrap` },
        { clock: o.clock, random: this.random, transport: this.bootstrapTransport },
      );
      this.clients.push(this.bootstrap);
    }
    const first = o.firstIndex ?? 0;
    for (let i = first; i < first + o.count; i++) {
      const id = nodeIdentity(o.namePrefix, i, o.settings.zones);
      // One token bucket per kubelet, shared by its request and watch clients, like one client-go client.
      const limiter = new TokenBucket(o.qps, o.burst, o.clock);
      const config = { ...o.config, userAgent: `kubelet/${KUBELET_VERSION} (linux/amd64) kscale-hollow/${id.name}` };
      const rest = new RESTClient(config, {
        clock: o.clock,
        random: this.random,
        rateLimiter: limiter,
        agent: this.agent,
      });
      const podRest = new RESTClient(config, {
        clock: o.clock,
        random: this.random,
        rateLimiter: limiter,
        agent: this.podAgent,
      });
      const watchRest = new RESTClient(config, {
        clock: o.clock,
        random: this.random,
        rateLimiter: limiter,
        agent: this.watchAgent,
      });
      if (o.join !== undefined)
        this.nodeJoins.set(
          id.name,
          new NodeJoin({
            node: id.name,
            config: o.join.bootstrap,
            bootstrap: this.bootstrap!,
            clients: [rest, podRest, watchRest],
            ...(o.join.certDir !== undefined ? { certDir: o.join.certDir } : {}),
            ...(o.join.pendingTimeoutMs !== undefined ? { pendingTimeoutMs: o.join.pendingTimeoutMs } : {}),
            ...(o.join.attempts !== undefined ? { attempts: o.join.attempts } : {}),
            clock: o.clock,
            random: this.random,
            logger: o.logger,
          }),
        );
      const references =
        (o.podReferences ?? 'none') === 'watch'
          ? new PodReferenceManager({
              rest: podRest,
              node: id.name,
              clock: o.clock,
              random: this.random,
              logger: o.logger,
            })
          : undefined;
      if (references !== undefined) this.references.push(references);
      this.kubelets.set(
        id.name,
        new HollowKubelet({
          id,
          settings: o.settings,
          rest,
          podRest,
          watchRest,
          queue: this.queue,
          clock: o.clock,
          random: this.random,
          logger: o.logger,
          sharedPodWatch: o.podWatch === 'shared',
          nodeWatch: o.join !== undefined,
          startStats: this.startStats,
          metrics: this.metrics,
          ...(references !== undefined ? { references } : {}),
        }),
      );
      this.clients.push(rest, podRest, watchRest);
    }
  }

  /** Starts the shared pod watch (if any) and the staggered joins; resolves once every node has registered. */
  async start(): Promise<void> {
    if (this.o.kubeletPort !== undefined) await this.serveKubeletAPI(this.o.kubeletPort);
    if (this.o.podWatch === 'shared') this.startSharedWatch();
    const gapMs = this.o.joinRate > 0 ? 1000 / this.o.joinRate : 0;
    let i = 0;
    for (const k of this.kubelets.values()) {
      const delay = i++ * gapMs;
      this.joins.push(
        new Promise<void>((resolve) => {
          this.queue.after(delay, () => {
            if (this.stopped) return resolve();
            // The node's start: its slot in the staggered join, as a kubelet's process start.
            const startedAt = this.o.clock.monotonic();
            this.join(k)
              .then((joined) =>
                joined
                  ? k.start().then(() => {
                      if (k.registered) this.metrics.nodeStarted(this.o.clock.monotonic() - startedAt);
                      this.replayShared(k);
                    })
                  : undefined,
              )
              .catch((err: unknown) => this.o.logger.warn({ node: k.name, err: String(err) }, 'node failed to start'))
              .finally(resolve);
          });
        }),
      );
    }
    await Promise.all(this.joins);
    // Like a kubelet after TLS bootstrap: the bootstrap credential's connection is no longer needed.
    this.bootstrapTransport?.close();
  }

  /**
   * Bootstraps the node's own certificate (csr mode), at most join.concurrency nodes making keys and CSRs at once;
   * a CSR waiting for approval holds no slot, so one left Pending never stalls the others. False: it did not join.
   */
  private async join(k: HollowKubelet): Promise<boolean> {
    const j = this.nodeJoins.get(k.name);
    if (j === undefined) return true;
    try {
      await j.start((fn) => this.joinLimiter.run(fn));
      return !this.stopped;
    } catch (err) {
      this.joinFailed++;
      this.o.logger.warn(
        { node: k.name, err: String(err) },
        'the node did not join: no client certificate was issued for it',
      );
      return false;
    }
  }

  /**
   * One listener per node on its own loopback InternalIP, all feeding one server (a listener is one fd).
   * When an address cannot be bound (another fleet holds the port), the rest of the fleet runs without logs.
   */
  private async serveKubeletAPI(port: number): Promise<void> {
    const server = new KubeletServer(
      (address, ns, name) => this.byAddress.get(address)?.pods.get(ns, name),
      this.o.clock,
    );
    this.kubeletServer = server;
    let bound = port;
    for (const k of this.kubelets.values()) {
      try {
        bound = await server.listen(k.id.internalIP, bound);
      } catch (err) {
        this.o.logger.warn(
          { node: k.name, port: bound, err: String(err) },
          'serving the kubelet API failed; no logs from here on',
        );
        return;
      }
      k.id.kubeletPort = bound;
      this.byAddress.set(k.id.internalIP, k);
    }
  }

  private startSharedWatch(): void {
    const rest = new RESTClient(this.o.config, { clock: this.o.clock, random: this.random, agent: this.watchAgent });
    this.clients.push(rest);
    const informer = new SharedInformer<Pod>(
      listWatchFor(rest.resource<Pod>(RESOURCES.pods), { fieldSelector: 'spec.nodeName!=' }),
      {
        clock: this.o.clock,
        random: this.random,
        logger: this.o.logger,
        indexers: { [NODE_NAME_INDEX]: (p) => [p.spec?.nodeName ?? ''] },
        reflector: { name: 'pods@fleet', transform: stripManagedFields },
      },
    );
    const target = (p: Pod): HollowKubelet | undefined => {
      const k = this.kubelets.get(p.spec?.nodeName ?? '');
      return k?.registered === true ? k : undefined;
    };
    informer.addEventHandler({
      onAdd: (p) => target(p)?.podChanged(p),
      onUpdate: (_old, p) => target(p)?.podChanged(p),
      onDelete: (d) => {
        const p = d instanceof DeletedFinalStateUnknown ? d.obj : d;
        target(p)?.podDeleted(p);
      },
    });
    this.shared = informer;
    this.sharedStop = informer.run();
  }

  /** With a shared watch, pods that arrived before their node registered are handed over now. */
  private replayShared(k: HollowKubelet): void {
    if (this.shared === undefined || !k.registered) return;
    for (const p of this.shared.indexer.byIndex(NODE_NAME_INDEX, k.name)) k.podChanged(p);
  }

  private podsOf(name: string): Pod[] {
    return this.shared?.indexer.byIndex(NODE_NAME_INDEX, name) ?? [];
  }

  /** Names of live nodes, a random `fraction` of them (at least one when fraction > 0). */
  pick(fraction: number): string[] {
    const alive = [...this.kubelets.values()].filter((k) => !k.killed).map((k) => k.name);
    const want = Math.min(alive.length, fraction > 0 ? Math.max(1, Math.round(fraction * this.kubelets.size)) : 0);
    for (let i = alive.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [alive[i], alive[j]] = [alive[j]!, alive[i]!];
    }
    return alive.slice(0, want).sort(byIndex);
  }

  /** Kills the named nodes of this fleet; returns those it knew and were alive. */
  kill(names: string[]): string[] {
    const done: string[] = [];
    for (const n of names) {
      const k = this.kubelets.get(n);
      if (k === undefined || k.killed) continue;
      k.kill();
      done.push(n);
    }
    return done;
  }

  /** Revives the named nodes (all killed ones when `names` is undefined); returns those revived. */
  revive(names?: string[]): string[] {
    const done: string[] = [];
    for (const k of names === undefined ? this.kubelets.values() : names.map((n) => this.kubelets.get(n))) {
      if (k === undefined || !k.killed) continue;
      k.revive(() => this.podsOf(k.name));
      done.push(k.name);
    }
    return done;
  }

  /** Counters summed over all kubelets and clients. */
  stats(): FleetStats {
    const s: FleetStats = {
      count: this.kubelets.size,
      registered: 0,
      killed: 0,
      podWatch: this.o.podWatch,
      heartbeat: this.o.settings.heartbeat,
      requests: 0,
      retries: 0,
      tooManyRequests: 0,
      leaseRenewals: 0,
      leaseErrors: 0,
      statusSyncs: 0,
      statusPatches: 0,
      statusErrors: 0,
      podsKnown: 0,
      podsStarted: 0,
      podsCompleted: 0,
      podsDeleted: 0,
      podErrors: 0,
      join: this.o.join !== undefined ? 'csr' : 'shared',
      joined: 0,
      joinFailed: this.joinFailed,
      certificates: 0,
      referenceWatches: 0,
      referenceWatchesSynced: 0,
      serviceAccountTokens: 0,
      serviceAccountTokenRefreshes: 0,
      nodeWatchesSynced: 0,
      podStart: this.startStats.snapshot(),
    };
    for (const k of this.kubelets.values()) {
      if (k.registered) s.registered++;
      if (k.killed) s.killed++;
      if (k.nodeWatchSynced) s.nodeWatchesSynced++;
      s.leaseRenewals += k.lease.stats.renewals + k.lease.stats.creates;
      s.leaseErrors += k.lease.stats.errors;
      s.statusSyncs += k.status.stats.syncs;
      s.statusPatches += k.status.stats.patches;
      s.statusErrors += k.status.stats.errors;
      s.podsKnown += k.pods.size;
      s.podsStarted += k.pods.stats.started;
      s.podsCompleted += k.pods.stats.completed;
      s.podsDeleted += k.pods.stats.deleted;
      s.podErrors += k.pods.stats.errors;
    }
    for (const j of this.nodeJoins.values()) {
      if (j.certificates.current !== undefined) s.joined++;
      s.certificates += j.certificates.issued;
    }
    for (const r of this.references) {
      s.referenceWatches += r.stats.watches;
      s.referenceWatchesSynced += r.syncedWatches();
      s.serviceAccountTokens += r.stats.tokens;
      s.serviceAccountTokenRefreshes += r.stats.tokenRefreshes;
    }
    for (const c of this.clients) {
      s.requests += c.stats.requests;
      s.retries += c.stats.retries;
      s.tooManyRequests += c.stats.tooManyRequests;
    }
    return s;
  }

  /** Stops every loop and watch and closes the sockets; Nodes and Leases stay as they are. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.stop();
    this.startStats.stop();
    await Promise.all([...this.kubelets.values()].map((k) => k.stop()));
    await this.sharedStop?.stop();
    await this.kubeletServer?.close();
    for (const j of this.nodeJoins.values()) j.stop();
    this.bootstrapTransport?.close();
    this.agent.destroy();
    this.podAgent.destroy();
    this.watchAgent.destroy();
  }
}

function byIndex(a: string, b: string): number {
  const n = (s: string): number => Number(/(\d+)$/.exec(s)?.[1] ?? 0);
  return n(a) - n(b) || a.localeCompare(b);
}

/** A keep-alive HTTP/1.1 pool of `maxSockets` for the shared credential's lanes. */
function pooledAgent(config: RestConfig, maxSockets: number): http.Agent {
  return newAgent(config, {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: Number.isFinite(maxSockets) ? maxSockets : 256,
  });
}
