/**
 * NodeLifecycleController, like kube-controller-manager's
 * pkg/controller/nodelifecycle: every --node-monitor-period it checks each
 * node's Lease and Ready heartbeat; a node silent for the grace period gets
 * Unknown conditions, NoSchedule taints at once, and its NoExecute taint
 * through its zone's rate-limited queue; pods on a node that stops being
 * Ready are marked not Ready. The pods themselves are evicted by the
 * TaintEvictionController, per their tolerations.
 */
import {
  metaNamespaceKeyFunc,
  RateLimitingQueue,
  RESOURCES,
  runWorkers,
  splitMetaNamespaceKey,
  type ClientLogger,
  type Lister,
  type ResourceClient,
  type SharedInformer,
  type Workers,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import type { Controller, ControllerContext } from '../controller_context.js';
import { SharedInformerFactory } from '../../client/index.js';
import {
  getCondition,
  markPodsNotReady,
  swapNodeControllerTaint,
  taintExists,
  NOT_READY_TAINT_TEMPLATE,
  UNREACHABLE_TAINT_TEMPLATE,
} from '../nodeutil/index.js';
import { parallelize, Periodic } from '../periodic.js';
import {
  NODE_EVICTION_PERIOD_MS,
  NODE_HEALTH_UPDATE_RETRY,
  NODE_UPDATE_WORKER_SIZE,
  type NodeLifecycleControllerOptions,
} from './config.js';
import { NoExecuteTainter } from './no_execute_tainter.js';
import { noScheduleTaintChanges } from './no_schedule_tainting.js';
import { tryUpdateNodeHealth, type NodeHealthData, type NodeHealthResult } from './node_health.js';
import { getZoneKey } from './zone.js';
import { NAMESPACE_NODE_LEASE, type Lease, type Node, type Pod, type NodeCondition } from '../../api/index.js';

/** The controller's name for --controllers. */
export const NODE_LIFECYCLE_CONTROLLER = 'node-lifecycle-controller';
/** The pods index by spec.nodeName, shared with the taint eviction controller. */
export const POD_NODE_NAME_INDEX = 'spec.nodeName';
/** Nodes with this label are left out of zone disruption checks. */
export const LABEL_EXCLUDE_DISRUPTION = 'node.kubernetes.io/exclude-disruption';

/** Indexes a pod by its node. */
export const podNodeNameIndex = (p: Pod): string[] => (p.spec?.nodeName ? [p.spec.nodeName] : []);

/** Watches node heartbeats and applies upstream's health, tainting and zone disruption rules. */
export class NodeLifecycleController implements Controller {
  readonly name = NODE_LIFECYCLE_CONTROLLER;
  readonly tainter: NoExecuteTainter;
  readonly nodeHealthMap = new Map<string, NodeHealthData>();
  private readonly knownNodeSet = new Map<string, Node>();
  private readonly nodesToRetry = new Set<string>();
  private readonly nodes: ResourceClient<Node>;
  private readonly pods: ResourceClient<Pod>;
  private readonly nodeLister: Lister<Node>;
  private readonly leaseLister: Lister<Lease>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly clock: Clock;
  private readonly log: ClientLogger;
  private readonly nodeUpdateQueue: RateLimitingQueue<string>;
  private readonly podUpdateQueue: RateLimitingQueue<string>;
  private readonly monitor: Periodic;
  private readonly tainting: Periodic;
  private workers: Workers[] = [];

  constructor(
    ctx: ControllerContext,
    private readonly opts: NodeLifecycleControllerOptions = ctx.config.nodeLifecycle,
  ) {
    this.clock = ctx.clock;
    this.log = ctx.logger;
    this.nodes = ctx.client.resource<Node>(RESOURCES.nodes);
    this.pods = ctx.client.resource<Pod>(RESOURCES.pods);
    const nodeInformer = ctx.informers.informerFor<Node>(RESOURCES.nodes);
    this.nodeLister = nodeInformer.lister();
    this.leaseLister = ctx.informers.informerFor<Lease>(RESOURCES.leases, { namespace: NAMESPACE_NODE_LEASE }).lister();
    this.podInformer = ctx.informers.informerFor<Pod>(RESOURCES.pods);
    SharedInformerFactory.ensureIndex(this.podInformer, POD_NODE_NAME_INDEX, podNodeNameIndex);
    this.nodeUpdateQueue = new RateLimitingQueue<string>({ clock: this.clock, name: 'node_lifecycle_controller' });
    this.podUpdateQueue = new RateLimitingQueue<string>({ clock: this.clock, name: 'node_lifecycle_controller_pods' });
    this.tainter = new NoExecuteTainter(opts, this.clock, this.nodes, this.nodeLister, this.log);
    nodeInformer.addEventHandler({
      onAdd: (n) => this.nodeUpdateQueue.add(n.metadata!.name!),
      onUpdate: (_old, n) => this.nodeUpdateQueue.add(n.metadata!.name!),
      onDelete: (n) => void this.nodesToRetry.delete(metaNamespaceKeyFunc(n)),
    });
    this.podInformer.addEventHandler({
      onAdd: (p) => this.podUpdated(undefined, p),
      onUpdate: (old, p) => this.podUpdated(old, p),
    });
    this.monitor = new Periodic(
      this.clock,
      opts.nodeMonitorPeriodMs,
      () => this.monitorNodeHealth(),
      this.log,
      'monitorNodeHealth',
    );
    this.tainting = new Periodic(
      this.clock,
      NODE_EVICTION_PERIOD_MS,
      () => this.tainter.doNoExecuteTaintingPass(),
      this.log,
      'doNoExecuteTaintingPass',
    );
  }

  /** Starts the workers, the tainting pass and the health monitor; informers must have synced. */
  run(): void {
    this.workers = [
      runWorkers(this.nodeUpdateQueue, NODE_UPDATE_WORKER_SIZE, (n) => this.doNoScheduleTaintingPass(n), {
        logger: this.log,
        name: 'node-update',
      }),
      runWorkers(this.podUpdateQueue, NODE_UPDATE_WORKER_SIZE, (k) => this.processPod(k), {
        logger: this.log,
        name: 'pod-update',
        maxRetries: 5,
      }),
    ];
    this.tainting.start();
    this.monitor.start();
  }

  /** Stops every loop and worker. */
  async stop(): Promise<void> {
    await Promise.all([this.monitor.stop(), this.tainting.stop(), ...this.workers.map((w) => w.stop())]);
  }

  /** True when no pass or worker is busy and the update queues are empty. */
  isIdle(): boolean {
    return (
      !this.monitor.running &&
      !this.tainting.running &&
      this.workers.every((w) => w.idle()) &&
      this.nodeUpdateQueue.len() === 0 &&
      this.podUpdateQueue.len() === 0
    );
  }

  private podUpdated(old: Pod | undefined, pod: Pod): void {
    const node = pod.spec?.nodeName;
    if (node && (old === undefined || old.spec?.nodeName !== node))
      this.podUpdateQueue.add(`${pod.metadata?.namespace}/${pod.metadata?.name}`);
  }

  /** processPod: a pod bound to a node that is not Ready is marked not Ready too. */
  private async processPod(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pod = this.podInformer.lister().namespace(namespace).get(name);
    const nodeName = pod?.spec?.nodeName;
    if (pod === undefined || !nodeName) return;
    const health = this.nodeHealthMap.get(nodeName);
    if (health === undefined || this.nodeLister.get(nodeName) === undefined) return;
    const ready = getCondition(health.status?.conditions, 'Ready');
    if (ready !== undefined && ready.status !== 'True')
      await markPodsNotReady(this.pods, [pod], nodeName, this.clock.now(), this.log);
  }

  /** doNoScheduleTaintingPass: keeps a node's NoSchedule taints in line with its conditions. */
  private async doNoScheduleTaintingPass(nodeName: string): Promise<void> {
    const node = this.nodeLister.get(nodeName);
    if (node === undefined) return;
    const { add, remove } = noScheduleTaintChanges(node);
    if (add.length === 0 && remove.length === 0) return;
    if (!(await swapNodeControllerTaint(this.nodes, node, add, remove, this.clock.now(), this.log)))
      throw new Error(`failed to swap NoSchedule taints of node ${nodeName}`);
  }

  /** monitorNodeHealth: one pass over every node, then zone states. */
  async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodeLister.list();
    const seen = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata!.name!;
      seen.add(name);
      if (this.knownNodeSet.has(name)) {
        this.tainter.addZone(node);
        continue;
      }
      this.log.info({ node: name }, 'controller observed a new node');
      this.knownNodeSet.set(name, node);
      this.tainter.addZone(node);
      try {
        await this.tainter.markNodeAsReachable(node);
      } catch (err) {
        this.log.warn({ node: name, err: String(err) }, 'failed to clear NoExecute taints of a new node');
      }
    }
    for (const name of [...this.knownNodeSet.keys()]) {
      if (seen.has(name)) continue;
      this.log.info({ node: name }, 'controller observed a node deletion');
      this.knownNodeSet.delete(name);
      this.nodeHealthMap.delete(name);
    }
    const zoneToNodeConditions = new Map<string, (NodeCondition | undefined)[]>();
    await parallelize(NODE_UPDATE_WORKER_SIZE, nodes, (n) => this.updateNode(n, zoneToNodeConditions));
    await this.tainter.handleDisruption(zoneToNodeConditions, nodes, this.nodeHealthMap);
  }

  private async updateNode(
    cached: Node,
    zoneToNodeConditions: Map<string, (NodeCondition | undefined)[]>,
  ): Promise<void> {
    const name = cached.metadata!.name!;
    let node = cached;
    let result: NodeHealthResult | undefined;
    for (let attempt = 0; attempt < NODE_HEALTH_UPDATE_RETRY && result === undefined; attempt++) {
      try {
        result = await tryUpdateNodeHealth(this.nodeHealthMap, node, {
          now: this.clock.now(),
          monotonic: this.clock.monotonic(),
          gracePeriods: {
            monitorMs: this.opts.nodeMonitorGracePeriodMs,
            startupMs: this.opts.nodeStartupGracePeriodMs,
          },
          lease: this.leaseLister.namespace(NAMESPACE_NODE_LEASE).get(name),
          nodes: this.nodes,
        });
      } catch (err) {
        this.log.debug({ node: name, err: String(err) }, 'node health update failed; retrying with a fresh node');
        try {
          node = await this.nodes.get(name);
        } catch {
          this.log.warn({ node: name }, 'failed to get a node to retry its health update; probably deleted');
          return;
        }
      }
    }
    if (result === undefined) {
      this.log.warn({ node: name }, 'update health of node failed; skipping, no pods will be evicted');
      return;
    }
    const { observedReadyCondition: observed, currentReadyCondition: current } = result;
    if (cached.metadata?.labels?.[LABEL_EXCLUDE_DISRUPTION] === undefined) {
      const zone = getZoneKey(cached);
      const list = zoneToNodeConditions.get(zone);
      if (list === undefined) zoneToNodeConditions.set(zone, [current]);
      else list.push(current);
    }
    if (current !== undefined) {
      const pods = this.podInformer.indexer.byIndex(POD_NODE_NAME_INDEX, name);
      await this.processTaintBaseEviction(result.node, observed);
      const needsRetry = this.nodesToRetry.has(name);
      if ((current.status !== 'True' && observed.status === 'True') || (needsRetry && observed.status !== 'True')) {
        if (current.status !== 'True' && observed.status === 'True')
          this.log.info({ node: name, status: current.status }, 'node is not ready');
        try {
          await markPodsNotReady(this.pods, pods, name, this.clock.now(), this.log);
        } catch (err) {
          this.log.warn({ node: name, err: String(err) }, 'unable to mark all pods NotReady; queued for retry');
          this.nodesToRetry.add(name);
          return;
        }
      }
    }
    this.nodesToRetry.delete(name);
  }

  /** processTaintBaseEviction: queue NoExecute tainting for a not-Ready node, swap an existing taint at once, untaint a Ready one. */
  private async processTaintBaseEviction(node: Node, observed: NodeCondition): Promise<void> {
    const name = node.metadata!.name!;
    switch (observed.status) {
      case 'False':
      case 'Unknown': {
        const opposite = observed.status === 'False' ? UNREACHABLE_TAINT_TEMPLATE : NOT_READY_TAINT_TEMPLATE;
        if (taintExists(node.spec?.taints, opposite)) {
          if (!(await this.tainter.swapNoExecuteTaint(node, observed.status)))
            this.log.warn({ node: name }, 'failed to swap NoExecute taints; will try again next pass');
        } else if (this.tainter.markNodeForTainting(node, observed.status)) {
          this.log.debug({ node: name, ready: observed.status }, 'node is not ready: added to the taint queue');
        }
        break;
      }
      case 'True':
        try {
          if (await this.tainter.markNodeAsReachable(node))
            this.log.info({ node: name }, 'node is healthy again: removed its NoExecute taints');
        } catch (err) {
          this.log.warn({ node: name, err: String(err) }, 'failed to remove taints from node; will retry next pass');
        }
        break;
    }
  }
}
