/**
 * The zone side of the node lifecycle controller: one RateLimitedTimedQueue
 * per zone feeding the NoExecute taints (doNoExecuteTaintingPass), zone
 * states and their rates (handleDisruption, setLimiterInZone), and the
 * master disruption mode in which every zone is down and nothing is evicted.
 */
import type { ClientLogger, Lister, ResourceClient } from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import {
  getCondition,
  NOT_READY_TAINT_TEMPLATE,
  swapNodeControllerTaint,
  taintExists,
  UNREACHABLE_TAINT_TEMPLATE,
} from '../nodeutil/index.js';
import type { NodeLifecycleControllerOptions } from './config.js';
import type { NodeHealthData } from './node_health.js';
import { RateLimitedTimedQueue } from './rate_limited_queue.js';
import { computeZoneState, getZoneKey, zoneEvictionRate, zoneName, type ZoneState } from './zone.js';
import type { Node, NodeCondition } from '../../api/index.js';

/** Zone states, zone tainting queues and the NoExecute taint writes. */
export class NoExecuteTainter {
  readonly zoneStates = new Map<string, ZoneState>();
  readonly zoneNoExecuteTainter = new Map<string, RateLimitedTimedQueue>();
  /** NoExecute taints written per zone name (upstream's evictions_total metric). */
  readonly evictionsTotal = new Map<string, number>();

  constructor(
    private readonly opts: NodeLifecycleControllerOptions,
    private readonly clock: Clock,
    private readonly nodes: ResourceClient<Node>,
    private readonly nodeLister: Lister<Node>,
    private readonly log: ClientLogger,
  ) {}

  /** addPodEvictorForNewZone: a zone seen for the first time starts Initial with the normal rate. */
  addZone(node: Node): void {
    const zone = getZoneKey(node);
    if (this.zoneStates.has(zone)) return;
    this.zoneStates.set(zone, 'Initial');
    this.zoneNoExecuteTainter.set(zone, new RateLimitedTimedQueue(this.clock, this.opts.nodeEvictionRate));
  }

  private queueOf(node: Node): RateLimitedTimedQueue {
    this.addZone(node);
    return this.zoneNoExecuteTainter.get(getZoneKey(node))!;
  }

  /** markNodeForTainting: queues the node for its NoExecute taint; a node not yet tainted is re-queued fresh. */
  markNodeForTainting(node: Node, status: 'False' | 'Unknown'): boolean {
    const q = this.queueOf(node);
    const template = status === 'False' ? NOT_READY_TAINT_TEMPLATE : UNREACHABLE_TAINT_TEMPLATE;
    if (!taintExists(node.spec?.taints, template)) q.remove(node.metadata!.name!);
    return q.add(node.metadata!.name!, node.metadata?.uid ?? '');
  }

  /** markNodeAsReachable: removes both NoExecute taints and forgets the node in its zone queue. Throws when the write fails. */
  async markNodeAsReachable(node: Node): Promise<boolean> {
    const ok = await swapNodeControllerTaint(
      this.nodes,
      node,
      [],
      [UNREACHABLE_TAINT_TEMPLATE, NOT_READY_TAINT_TEMPLATE],
      this.clock.now(),
      this.log,
    );
    if (!ok) throw new Error(`failed to remove NoExecute taints from node ${node.metadata?.name}`);
    return this.queueOf(node).remove(node.metadata!.name!);
  }

  /** Swaps a not-ready taint for unreachable (or back) at once, as processTaintBaseEviction does for an already tainted node. */
  async swapNoExecuteTaint(node: Node, status: 'False' | 'Unknown'): Promise<boolean> {
    const [add, remove] =
      status === 'False'
        ? [NOT_READY_TAINT_TEMPLATE, UNREACHABLE_TAINT_TEMPLATE]
        : [UNREACHABLE_TAINT_TEMPLATE, NOT_READY_TAINT_TEMPLATE];
    return swapNodeControllerTaint(this.nodes, node, [add], [remove], this.clock.now(), this.log);
  }

  /** doNoExecuteTaintingPass: drains each zone queue as fast as its limiter allows. */
  async doNoExecuteTaintingPass(): Promise<void> {
    for (const [zone, q] of [...this.zoneNoExecuteTainter]) {
      await q.try(async (v) => {
        const node = this.nodeLister.get(v.value);
        if (node === undefined) return { done: true, retryMs: 0 };
        const ready = getCondition(node.status?.conditions, 'Ready');
        if (ready === undefined) return { done: false, retryMs: 50 };
        // Unreachable and not-ready mirror the Ready condition, so they are mutually exclusive.
        if (ready.status !== 'False' && ready.status !== 'Unknown') return { done: true, retryMs: 0 };
        const ok = await this.swapNoExecuteTaint(node, ready.status);
        if (ok) {
          const name = zoneName(zone);
          this.evictionsTotal.set(name, (this.evictionsTotal.get(name) ?? 0) + 1);
          this.log.info(
            { node: v.value, zone: name, taint: ready.status === 'False' ? 'not-ready' : 'unreachable' },
            'node tainted NoExecute',
          );
        }
        return { done: ok, retryMs: 0 };
      });
    }
  }

  /**
   * handleDisruption: computes each zone's state from its nodes' Ready conditions and
   * sets zone rates. When every zone is fully disrupted, evictions stop and NoExecute
   * taints are removed; leaving that mode resets every node's probe timestamp.
   */
  async handleDisruption(
    zoneToNodeConditions: Map<string, (NodeCondition | undefined)[]>,
    nodes: readonly Node[],
    health: Map<string, NodeHealthData>,
  ): Promise<void> {
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conds] of zoneToNodeConditions) {
      const { state } = computeZoneState(conds, this.opts.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
      if (!this.zoneNoExecuteTainter.has(zone))
        this.zoneNoExecuteTainter.set(zone, new RateLimitedTimedQueue(this.clock, this.opts.nodeEvictionRate));
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneToNodeConditions.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWasFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      this.log.warn(
        { zones: this.zoneStates.size },
        'all nodes are not ready: entering master disruption mode, evictions stop',
      );
      for (const node of nodes) {
        try {
          await this.markNodeAsReachable(node);
        } catch (err) {
          this.log.warn({ node: node.metadata?.name, err: String(err) }, 'failed to remove taints from node');
        }
      }
      for (const zone of this.zoneStates.keys()) {
        this.zoneNoExecuteTainter.get(zone)?.swapLimiter(0);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWasFullyDisrupted) {
      this.log.warn({}, 'some nodes are ready: exiting master disruption mode');
      const now = this.clock.monotonic();
      for (const node of nodes) {
        const h = health.get(node.metadata!.name!);
        if (h !== undefined)
          health.set(node.metadata!.name!, { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
      }
      for (const zone of this.zoneStates.keys())
        this.setZoneState(zone, zoneToNodeConditions.get(zone)?.length ?? 0, newStates.get(zone)!);
      return;
    }
    for (const [zone, state] of this.zoneStates) {
      const next = newStates.get(zone)!;
      if (state === next) continue;
      this.setZoneState(zone, zoneToNodeConditions.get(zone)?.length ?? 0, next);
    }
  }

  /** setLimiterInZone plus the state change, logged. */
  private setZoneState(zone: string, size: number, state: ZoneState): void {
    const rate = zoneEvictionRate(state, size, this.opts);
    this.log.info({ zone: zoneName(zone), state, size, rate }, 'zone is now in a new state');
    this.zoneNoExecuteTainter.get(zone)?.swapLimiter(rate);
    this.zoneStates.set(zone, state);
  }
}
