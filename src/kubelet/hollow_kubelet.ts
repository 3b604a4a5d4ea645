/**
 * The HollowKubelet, like kubemark's hollow node: a real API client that
 * registers its Node, renews its Lease, reports node status and runs the
 * pods bound to it, all over HTTP, with no containers behind it. Its periodic
 * loops run on the fleet's one TimerQueue; its pod watch is its own
 * (--pod-watch=per-node, what real kubelets do) or the fleet's shared one.
 */
import {
  DeletedFinalStateUnknown,
  RESOURCES,
  SharedInformer,
  stripManagedFields,
  isAlreadyExistsError,
  isNotFoundError,
  listWatchFor,
  type ClientLogger,
  type RESTClient,
  type Stopper,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';
import type { KubeletSettings, NodeIdentity } from './config.js';
import { logNormalLatency } from './latency.js';
import type { FleetMetrics } from './fleet_metrics.js';
import { NodeLeaseController, leaseRenewIntervalMs } from './lease.js';
import { initialNode } from './node.js';
import { NodeStatusUpdater } from './node_status.js';
import { PodIPAllocator } from './pod_ips.js';
import type { PodStartStats } from './pod_start_stats.js';
import type { PodReferenceManager } from './pod_references.js';
import { PodWorkers } from './pod_worker.js';
import type { TaskHandle, TimerQueue } from './timer_queue.js';
import { formatTimestamp, NAMESPACE_NODE_LEASE, type Lease, type Node, type Pod } from '../api/index.js';

/** What a kubelet needs from its fleet. */
export interface HollowKubeletOptions {
  id: NodeIdentity;
  settings: KubeletSettings;
  /** Node heartbeats (registration, leases, node status), over the fleet's bounded keep-alive pool. */
  rest: RESTClient;
  /** Pod requests (status, deletion), over the fleet's pod lane (same rate limiter); `rest` when absent. */
  podRest?: RESTClient;
  /** The pod watch's client (same rate limiter), over the fleet's watch agent; unused with a shared pod watch. */
  watchRest: RESTClient;
  queue: TimerQueue;
  clock: Clock;
  random: () => number;
  logger: ClientLogger;
  /** True when the fleet's shared informer delivers this node's pods. */
  sharedPodWatch: boolean;
  /** Watch this node's own Node (metadata.name=<node>), as the kubelet's node informer does. */
  nodeWatch?: boolean;
  /** The fleet's pod start timings. */
  startStats?: PodStartStats;
  /** The fleet's /metrics: pod start SLI and the lease calls' latency. */
  metrics?: FleetMetrics;
  /** Reads what this node's pods reference (Secrets, ConfigMaps, ServiceAccount tokens); none when absent. */
  references?: PodReferenceManager;
}

/** One simulated node. */
export class HollowKubelet {
  readonly name: string;
  /** The node's identity; the fleet sets its kubeletPort before the node registers. */
  readonly id: NodeIdentity;
  readonly lease: NodeLeaseController;
  readonly status: NodeStatusUpdater;
  readonly pods: PodWorkers;
  private informer: SharedInformer<Pod> | undefined;
  private informerStop: Stopper | undefined;
  private nodeInformer: SharedInformer<Node> | undefined;
  private nodeInformerStop: Stopper | undefined;
  private loops: TaskHandle[] = [];
  private killedFlag = false;
  private stopped = false;
  /** Whether registration finished. */
  registered = false;

  constructor(private readonly o: HollowKubeletOptions) {
    this.name = o.id.name;
    this.id = o.id;
    const nodes = o.rest.resource<Node>(RESOURCES.nodes);
    const leases = o.rest.resource<Lease>(RESOURCES.leases);
    const pods = (o.podRest ?? o.rest).resource<Pod>(RESOURCES.pods);
    const ns = { namespace: NAMESPACE_NODE_LEASE };
    // client-go's rest_client_request_duration_seconds, for the lease calls only (the heartbeat).
    const timeLease = <T>(verb: string, call: () => Promise<T>): Promise<T> =>
      o.metrics === undefined ? call() : o.metrics.timeLease(verb, () => o.clock.monotonic(), call);
    this.status = new NodeStatusUpdater(
      {
        getNode: (name, rv) => nodes.get(name, rv === undefined ? {} : { resourceVersion: rv }),
        patchNodeStatus: (name, patch) => nodes.patchStatus(name, 'strategic', patch),
        // With its node informer the kubelet reads its Node from it, as upstream's since 1.30.
        ...(o.nodeWatch === true ? { cachedNode: (name: string) => this.nodeInformer?.lister().get(name) } : {}),
      },
      o.id,
      o.settings,
      o.clock,
    );
    this.lease = new NodeLeaseController(
      {
        getLease: (name) =>
          timeLease('GET', () => leases.get(name, ns)).catch((err: unknown) =>
            isNotFoundError(err) ? undefined : Promise.reject(err as Error),
          ),
        createLease: (l) => timeLease('POST', () => leases.create(l, ns)),
        updateLease: (l) => timeLease('PUT', () => leases.update(l, ns)),
      },
      o.id.name,
      o.settings.nodeLeaseDurationSeconds,
      o.clock,
    );
    this.pods = new PodWorkers({
      api: {
        patchPodStatus: (namespace, name, patch) =>
          pods.patchStatus(name, 'strategic', patch, { namespace, discardResult: true }),
        deletePod: (namespace, name, uid) =>
          pods.delete(name, { namespace, gracePeriodSeconds: 0, preconditions: { uid } }),
      },
      ips: new PodIPAllocator(o.id.podCIDR),
      queue: o.queue,
      clock: o.clock,
      hostIP: o.id.internalIP,
      startupLatency: logNormalLatency(o.settings.podStartupP50Ms, o.settings.podStartupP99Ms, o.random),
      jobPodRuntimeMs: o.settings.jobPodRuntimeMs,
      logger: o.logger,
      ...(o.startStats !== undefined ? { startStats: o.startStats } : {}),
      ...(o.metrics !== undefined ? { metrics: o.metrics } : {}),
    });
  }

  /** True while failure injection holds this node dead. */
  get killed(): boolean {
    return this.killedFlag;
  }

  /** Registers the node, writes the first lease, starts the pod watch and the periodic loops. */
  async start(): Promise<void> {
    await this.register();
    if (this.stopped) return;
    const s = this.o.settings;
    const warn = (what: string) => (err: unknown) =>
      this.o.logger.warn({ node: this.name, err: String(err) }, `${what} failed`);
    if (s.heartbeat === 'lease') {
      await this.lease.sync().catch(warn('lease renewal'));
      this.loops.push(
        this.o.queue.every(
          leaseRenewIntervalMs(s.nodeLeaseDurationSeconds),
          () => (this.killedFlag ? undefined : this.lease.sync()),
          { jitter: 0.04 },
          warn('lease renewal'),
        ),
      );
    }
    this.loops.push(
      this.o.queue.every(
        s.nodeStatusUpdateFrequencyMs,
        () => (this.killedFlag ? undefined : this.status.sync().then(() => undefined)),
        { jitter: 0.04 },
        warn('node status update'),
      ),
    );
    if (!this.o.sharedPodWatch) this.startPodWatch();
    if (this.o.nodeWatch === true) this.startNodeWatch();
  }

  /** Whether the own-Node watch has listed its Node. */
  get nodeWatchSynced(): boolean {
    return this.nodeInformer?.hasSynced() === true;
  }

  /** The kubelet's node informer: its own Node only, the one Node the Node authorizer lets it read. */
  private startNodeWatch(): void {
    this.nodeInformer = this.informerFor<Node>('nodes', `metadata.name=${this.name}`, `node@${this.name}`);
    this.nodeInformerStop = this.nodeInformer.run();
  }

  /** An informer over this kubelet's watch client, for the objects a field selector picks. */
  private informerFor<T extends Pod | Node>(
    resource: 'pods' | 'nodes',
    fieldSelector: string,
    name: string,
  ): SharedInformer<T> {
    return new SharedInformer<T>(listWatchFor(this.o.watchRest.resource<T>(RESOURCES[resource]), { fieldSelector }), {
      clock: this.o.clock,
      random: this.o.random,
      logger: this.o.logger,
      reflector: { name, transform: stripManagedFields },
    });
  }

  /** Creates the Node, retrying with backoff like registerWithAPIServer; an existing Node is taken over. */
  private async register(): Promise<void> {
    const nodes = this.o.rest.resource<Node>(RESOURCES.nodes);
    for (let delay = 100; !this.stopped; delay = Math.min(delay * 2, 7_000)) {
      try {
        const now = this.o.clock.now();
        let node: Node;
        try {
          node = await nodes.create(initialNode(this.o.id, this.o.settings, formatTimestamp(now)));
          this.status.reported(now);
        } catch (err) {
          if (!isAlreadyExistsError(err)) throw err;
          // Like upstream: an existing Node is ours; the status loop brings its status up to date.
          node = await nodes.get(this.name);
        }
        this.lease.nodeUID = node.metadata?.uid;
        this.registered = true;
        return;
      } catch (err) {
        this.o.logger.warn({ node: this.name, err: String(err) }, 'registering the node failed; retrying');
        await this.o.clock.sleep(delay * (0.5 + this.o.random()));
      }
    }
  }

  private startPodWatch(): void {
    this.informer = this.informerFor<Pod>('pods', `spec.nodeName=${this.name}`, `pods@${this.name}`);
    this.informer.addEventHandler({
      onAdd: (p) => this.podChanged(p),
      onUpdate: (_old, p) => this.podChanged(p),
      onDelete: (p) => this.podDeleted(p instanceof DeletedFinalStateUnknown ? p.obj : p),
    });
    this.informerStop = this.informer.run();
  }

  /** A pod of this node was added or changed. */
  podChanged(pod: Pod): void {
    if (this.stopped) return;
    const phase = pod.status?.phase;
    if (pod.metadata?.deletionTimestamp === undefined && phase !== 'Succeeded' && phase !== 'Failed')
      this.o.references?.registerPod(pod);
    else this.o.references?.unregisterPod(pod);
    this.pods.sync(pod);
  }

  /** A pod of this node was deleted. */
  podDeleted(pod: Pod): void {
    this.o.references?.unregisterPod(pod);
    this.pods.forget(pod);
  }

  /** Failure injection: no more heartbeats, status or pod work, as if the machine died. */
  kill(): void {
    this.killedFlag = true;
    this.pods.pause();
  }

  /** Brings a killed node back; its pods are re-read from the watch cache. */
  revive(podsOfNode: () => Iterable<Pod>): void {
    if (!this.killedFlag) return;
    this.killedFlag = false;
    this.pods.resume(this.informer !== undefined ? this.informer.indexer.list() : podsOfNode());
  }

  /** Stops loops and the pod watch; the Node and Lease are left as they are. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const l of this.loops) l.cancel();
    this.loops = [];
    this.pods.pause();
    await Promise.all([this.informerStop?.stop(), this.nodeInformerStop?.stop(), this.o.references?.stop()]);
  }
}
