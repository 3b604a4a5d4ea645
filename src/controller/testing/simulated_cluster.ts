/**
 * A cluster of hand-played kubelets for controller tests, like upstream's
 * pkg/controller/testutil but against a real API server: the test creates
 * Nodes, Leases and Pods through the API, renews leases with the FakeClock's
 * time, and steps that clock while the controllers run in-process. After
 * each step it waits until the controllers are idle and their informers hold
 * what the server holds, so every decision sees a settled world.
 */
import {
  EventBroadcaster,
  loadKubeconfig,
  type ClientLogger,
  RESOURCES,
  RESTClient,
  type KubeObject,
  type ResourceClient,
  type SharedInformer,
} from '../../client/index.js';
import { FakeClock } from '../../clock/index.js';
import { defaultControllerManagerConfiguration, type ControllerManagerConfiguration } from '../controller_context.js';
import { newControllerDescriptors } from '../controller_descriptors.js';
import { startControllers, type RunningControllers } from '../controller_manager.js';
import { SharedInformerFactory } from '../../client/index.js';
import {
  formatMicroTimestamp,
  formatTimestamp,
  NAMESPACE_NODE_LEASE,
  type Lease,
  type Node,
  type Pod,
  type Toleration,
  type NodeCondition,
} from '../../api/index.js';

/** Options of a simulated cluster. */
export interface SimulatedClusterOptions {
  kubeconfig: string;
  nodeLifecycle?: Partial<ControllerManagerConfiguration['nodeLifecycle']>;
  /** Lease renewal period of the played kubelets (10 s, upstream's). */
  leaseRenewMs?: number;
  /** Real ms to wait for idleness or informer catch-up before failing. */
  settleTimeoutMs?: number;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Played kubelets plus in-process controllers on a FakeClock. */
export class SimulatedCluster {
  readonly clock = new FakeClock(Date.now());
  readonly alive = new Set<string>();
  readonly nodes: ResourceClient<Node>;
  readonly pods: ResourceClient<Pod>;
  readonly leases: ResourceClient<Lease>;
  controllers!: RunningControllers;
  private informers!: SharedInformerFactory;
  private events?: EventBroadcaster;
  private lastRenew = new Map<string, number>();
  private settledAt = -1;

  private constructor(
    private readonly opts: SimulatedClusterOptions,
    readonly client: RESTClient,
    private readonly controllerClient: RESTClient,
    private readonly checker: RESTClient,
  ) {
    this.nodes = client.resource<Node>(RESOURCES.nodes);
    this.pods = client.resource<Pod>(RESOURCES.pods);
    this.leases = client.resource<Lease>(RESOURCES.leases);
  }

  /** Connects three clients (kubelets, controllers, checks) to the server in `kubeconfig`. */
  static create(opts: SimulatedClusterOptions): SimulatedCluster {
    const cfg = { ...loadKubeconfig({ path: opts.kubeconfig }), qps: 0 };
    return new SimulatedCluster(opts, new RESTClient(cfg), new RESTClient(cfg), new RESTClient(cfg));
  }

  /** Starts the controllers (informers on real time, decisions on the fake clock). */
  async startControllers(enabled: string[] = ['*']): Promise<void> {
    const config = defaultControllerManagerConfiguration();
    config.nodeLifecycle = { ...config.nodeLifecycle, ...this.opts.nodeLifecycle };
    this.informers = new SharedInformerFactory(this.controllerClient);
    this.events = new EventBroadcaster(this.controllerClient, { clock: this.clock });
    this.controllers = await startControllers(
      {
        client: this.controllerClient,
        informers: this.informers,
        clock: this.clock,
        logger: this.logger(),
        config,
        events: this.events,
      },
      newControllerDescriptors(),
      enabled,
    );
    await this.settle();
  }

  /** Silent, unless KSCALE_TEST_LOG is set: then info and warn lines on stderr, stamped with fake seconds. */
  private logger(): ClientLogger {
    if (process.env.KSCALE_TEST_LOG === undefined) return silent;
    const t0 = this.clock.now();
    const line =
      (level: string) =>
      (obj: object, msg: string): void =>
        void process.stderr.write(
          `${((this.clock.now() - t0) / 1000).toFixed(1)}s ${level} ${msg} ${JSON.stringify(obj)}\n`,
        );
    return { debug: () => undefined, info: line('info'), warn: line('warn') };
  }

  /** Registers a Ready node in `zone` with a fresh Lease, as a kubelet does. */
  async addNode(name: string, zone: string): Promise<void> {
    const now = this.clock.now();
    await this.nodes.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
      spec: {},
    });
    await this.postReady(name, 'True');
    await this.leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: NAMESPACE_NODE_LEASE },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTimestamp(now) },
    });
    this.lastRenew.set(name, now);
    this.alive.add(name);
  }

  /** Posts the node's conditions with a new heartbeat, like the kubelet's status update. */
  async postReady(name: string, status: 'True' | 'False'): Promise<void> {
    const t = formatTimestamp(this.clock.now());
    const node = await this.nodes.get(name);
    const cond = (type: string, s: string, reason: string): NodeCondition => ({
      type,
      status: s,
      reason,
      message: reason,
      lastHeartbeatTime: t,
      lastTransitionTime: t,
    });
    node.status = {
      ...node.status,
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID'),
        cond('Ready', status, status === 'True' ? 'KubeletReady' : 'KubeletNotReady'),
      ],
    };
    await this.nodes.updateStatus(node);
  }

  /** Creates a Running, Ready pod bound to `node` with extra tolerations (admission adds the 300 s defaults unless they cover the taints). */
  async addPod(name: string, node: string, tolerations: Toleration[] = []): Promise<void> {
    const pod = await this.pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { nodeName: node, tolerations, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] },
    });
    const t = formatTimestamp(this.clock.now());
    pod.status = {
      phase: 'Running',
      conditions: ['Initialized', 'ContainersReady', 'Ready', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: t,
      })),
    };
    await this.pods.updateStatus(pod);
  }

  /** Stops the kubelets of `names`: no more lease renewals or status posts. */
  kill(names: readonly string[]): void {
    for (const n of names) this.alive.delete(n);
  }

  /** Brings kubelets back: a lease renewal and a Ready status post at once, then renewals on schedule. */
  async revive(names: readonly string[]): Promise<void> {
    for (const n of names) {
      this.alive.add(n);
      await this.renew(n);
      await this.postReady(n, 'True');
    }
  }

  private async renew(name: string): Promise<void> {
    const now = this.clock.now();
    await this.leases.patch(
      name,
      'merge',
      { spec: { renewTime: formatMicroTimestamp(now) } },
      { namespace: NAMESPACE_NODE_LEASE },
    );
    this.lastRenew.set(name, now);
  }

  /** Moves fake time forward by `ms` in `stepMs` steps, renewing live leases on schedule and settling after each step. */
  async advance(ms: number, stepMs = 100, onStep?: () => Promise<void> | void): Promise<void> {
    const renewEvery = this.opts.leaseRenewMs ?? 10_000;
    for (let done = 0; done < ms; done += stepMs) {
      for (const n of this.alive)
        if (this.clock.now() - (this.lastRenew.get(n) ?? 0) >= renewEvery) await this.renew(n);
      this.clock.step(Math.min(stepMs, ms - done));
      await this.settle();
      await onStep?.();
    }
  }

  /** Waits until every controller is idle and, when anything was written, until informers hold the server's state. */
  async settle(): Promise<void> {
    for (;;) {
      await this.waitIdle();
      const writes = this.client.stats.requests + this.controllerClient.stats.requests;
      if (writes === this.settledAt) return;
      await this.waitCaughtUp();
      await this.waitIdle();
      if (this.client.stats.requests + this.controllerClient.stats.requests === writes) {
        this.settledAt = writes;
        return;
      }
    }
  }

  private async waitIdle(): Promise<void> {
    const deadline = Date.now() + (this.opts.settleTimeoutMs ?? 10_000);
    for (let stable = 0; stable < 2;) {
      await tick();
      stable = this.controllers.isIdle() ? stable + 1 : 0;
      if (Date.now() > deadline) throw new Error('controllers did not become idle');
    }
  }

  private async waitCaughtUp(): Promise<void> {
    const deadline = Date.now() + (this.opts.settleTimeoutMs ?? 10_000);
    const pairs: [SharedInformer<KubeObject>, ResourceClient][] = [
      [this.informers.informerFor(RESOURCES.nodes), this.checker.resource(RESOURCES.nodes)],
      [
        this.informers.informerFor(RESOURCES.leases, { namespace: NAMESPACE_NODE_LEASE }),
        this.checker.resource(RESOURCES.leases),
      ],
      [this.informers.informerFor(RESOURCES.pods), this.checker.resource(RESOURCES.pods)],
    ];
    for (const [inf, rc] of pairs) {
      const ns = rc.gvr.resource === 'leases' ? NAMESPACE_NODE_LEASE : undefined;
      const listed = (await rc.list(ns !== undefined ? { namespace: ns } : {})).items;
      const want = new Map(
        listed.map((o) => [
          `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`,
          Number(o.metadata?.resourceVersion),
        ]),
      );
      for (;;) {
        const keys = inf.indexer.listKeys();
        const ok =
          keys.length === want.size &&
          [...want].every(([k, rv]) => Number(inf.indexer.getByKey(k)?.metadata?.resourceVersion ?? -1) >= rv);
        if (ok) break;
        if (Date.now() > deadline) throw new Error(`informer of ${rc.gvr.resource} did not catch up`);
        await pause(2);
      }
    }
  }

  /** Stops the controllers and closes the clients. */
  async stop(): Promise<void> {
    await this.controllers?.stop();
    await this.events?.shutdown();
    for (const c of [this.client, this.controllerClient, this.checker]) c.close();
  }
}

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined };
