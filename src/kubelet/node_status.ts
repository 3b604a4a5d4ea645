/**
 * Node status, as upstream's kubelet_node_status.go does it: every
 * --node-status-update-frequency, read the Node, compute the status, and PATCH
 * nodes/status (strategic merge) only when it changed, ignoring heartbeat
 * times, or when --node-status-report-frequency has passed since the last
 * report. With --heartbeat=status the kubelet behaves like one from before
 * node leases: the full NodeStatus is written every update period.
 *
 * Where the Node is read: since Kubernetes 1.30 (kubernetes#123977) the first
 * try of each update reads the kubelet's own node informer (its lister), so a
 * steady node makes no request at all; a try after a failure GETs from the API
 * server with no resourceVersion (a quorum read). A kubelet without a node
 * informer here (`cachedNode` absent) reads as 1.29 and earlier did: a GET with
 * resourceVersion "0", served from the API server's watch cache.
 */
import type { Clock } from '../clock/index.js';
import type { HeartbeatMode, KubeletSettings, NodeIdentity } from './config.js';
import { healthyConditions, staticNodeStatus } from './node.js';
import { formatTimestamp, type Node, type NodeCondition, type NodeStatus } from '../api/index.js';

/** A strategic merge patch of NodeStatus: status fields plus the conditions' order directive. */
export type NodeStatusPatch = NodeStatus & { '$setElementOrder/conditions'?: { type: string }[] };

/** The two calls the status loop makes; a ResourceClient<Node> provides them. */
export interface NodeStatusAPI {
  getNode(name: string, resourceVersion: string | undefined): Promise<Node>;
  patchNodeStatus(name: string, patch: unknown): Promise<Node>;
  /** The kubelet's node lister: its own Node as its informer holds it, undefined before the first list. */
  cachedNode?(name: string): Node | undefined;
}

/** What one sync did. */
export type NodeStatusSyncResult = 'patched' | 'unchanged';

/** Like upstream's nodeStatusUpdateRetry. */
export const NODE_STATUS_UPDATE_RETRY = 5;

const STATIC_FIELDS = ['capacity', 'allocatable', 'addresses', 'daemonEndpoints', 'nodeInfo', 'images'] as const;

/** Computes and reports one node's status. */
export class NodeStatusUpdater {
  /** When status was last written (registration counts), like kl.lastStatusReportTime. */
  private lastReportAt = Number.NEGATIVE_INFINITY;
  private staticsCache: NodeStatus | undefined;
  private readonly staticJSON = new Map<string, string>();
  /**
   * The status last compared with the statics and the fields that differed in it. The node lister hands out the same
   * object until the Node changes, so a steady node's sync does not serialize its images and addresses again.
   */
  private lastCompared: { status: NodeStatus; differing: ReadonlySet<string> } | undefined;
  /** Counters for the fleet's stats. */
  readonly stats = { syncs: 0, patches: 0, errors: 0 };

  constructor(
    private readonly api: NodeStatusAPI,
    private readonly id: NodeIdentity,
    private readonly settings: KubeletSettings,
    private readonly clock: Clock,
  ) {}

  /** The unchanging fields, computed on first use: the fleet binds the kubelet port after construction. */
  private get statics(): NodeStatus {
    if (this.staticsCache === undefined) {
      this.staticsCache = staticNodeStatus(this.id, this.settings);
      for (const f of STATIC_FIELDS) this.staticJSON.set(f, JSON.stringify(this.staticsCache[f]));
    }
    return this.staticsCache;
  }

  /** Records a status written by registration (the POST carried a full status). */
  reported(at = this.clock.now()): void {
    this.lastReportAt = at;
  }

  /** One tick of the status loop, with upstream's retries (the first read from a cache, later ones quorum reads). */
  async sync(): Promise<NodeStatusSyncResult> {
    this.stats.syncs++;
    let lastErr: unknown;
    for (let attempt = 0; attempt < NODE_STATUS_UPDATE_RETRY; attempt++) {
      try {
        return await this.trySync(await this.readNode(attempt));
      } catch (err) {
        lastErr = err;
      }
    }
    this.stats.errors++;
    throw lastErr;
  }

  /** The Node a try starts from: the lister's on the first try when there is one, else a GET (see the top). */
  private async readNode(attempt: number): Promise<Node> {
    if (attempt > 0) return this.api.getNode(this.id.name, undefined);
    if (this.api.cachedNode === undefined) return this.api.getNode(this.id.name, '0');
    const node = this.api.cachedNode(this.id.name);
    // Upstream's lister answers NotFound here, and the retry reads from the server.
    if (node === undefined) throw new Error(`node "${this.id.name}" not found in the node lister`);
    return node;
  }

  private async trySync(node: Node): Promise<NodeStatusSyncResult> {
    const now = this.clock.now();
    const { patch, changed } = this.computePatch(node.status ?? {}, now, this.settings.heartbeat);
    // Pre-lease kubelets wrote every period: the status was the heartbeat.
    const due =
      this.settings.heartbeat === 'status' || now - this.lastReportAt >= this.settings.nodeStatusReportFrequencyMs;
    if (!changed && !due) return 'unchanged';
    await this.api.patchNodeStatus(this.id.name, { status: patch });
    this.lastReportAt = now;
    this.stats.patches++;
    return 'patched';
  }

  /**
   * The status patch and whether anything but heartbeat times changed. In lease
   * mode the patch is a two-way diff like upstream's PatchNodeStatus; in status
   * mode it is the whole status the kubelet owns.
   */
  computePatch(current: NodeStatus, now: number, mode: HeartbeatMode): { patch: NodeStatusPatch; changed: boolean } {
    const nowText = formatTimestamp(now);
    const existing = current.conditions ?? [];
    const desired = healthyConditions(nowText);
    const patchConds: NodeCondition[] = [];
    let changed = false;
    const merged: NodeCondition[] = existing.map((c) => ({ ...c }));
    for (const want of desired) {
      const have = existing.find((c) => c.type === want.type);
      if (have === undefined) {
        changed = true;
        patchConds.push(want);
        merged.push(want);
        continue;
      }
      // Like upstream's setters: the transition time moves only when the status does.
      if (have.status === want.status && have.lastTransitionTime !== undefined)
        want.lastTransitionTime = have.lastTransitionTime;
      const differs =
        have.status !== want.status ||
        have.reason !== want.reason ||
        have.message !== want.message ||
        have.lastTransitionTime !== want.lastTransitionTime;
      if (differs) changed = true;
      if (mode === 'status' || differs) patchConds.push(want);
      else if (have.lastHeartbeatTime !== want.lastHeartbeatTime)
        patchConds.push({ type: want.type, lastHeartbeatTime: nowText } as NodeCondition);
      merged[merged.findIndex((c) => c.type === want.type)] = want;
    }
    const patch: NodeStatusPatch = {};
    const differing = this.staticsDiffering(current);
    for (const f of STATIC_FIELDS) {
      const same = !differing.has(f);
      if (!same) changed = true;
      if (!same || mode === 'status') (patch as Record<string, unknown>)[f] = this.statics[f];
    }
    if (patchConds.length > 0) {
      patch['$setElementOrder/conditions'] = merged.map((c) => ({ type: c.type }));
      patch.conditions = patchConds;
    }
    return { patch, changed };
  }

  /** The static fields whose value in `current` is not the kubelet's. */
  private staticsDiffering(current: NodeStatus): ReadonlySet<string> {
    if (this.lastCompared?.status === current) return this.lastCompared.differing;
    const statics = this.statics;
    const differing = new Set<string>();
    for (const f of STATIC_FIELDS) {
      if (statics[f] !== undefined && JSON.stringify(current[f]) !== this.staticJSON.get(f)) differing.add(f);
      else if (statics[f] === undefined && current[f] !== undefined) differing.add(f);
    }
    this.lastCompared = { status: current, differing };
    return differing;
  }
}
