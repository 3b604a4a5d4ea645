/**
 * Node health bookkeeping, like node_lifecycle_controller.go's nodeHealthMap
 * and tryUpdateNodeHealth: the controller's own probe timestamp per node,
 * moved forward whenever the Ready condition's heartbeat changes or the
 * node's Lease is renewed. Past the grace period the node's conditions are
 * set to Unknown. Probe times are the controller's monotonic clock (Go's
 * time.Now() carries a monotonic reading), so a step of the host's wall clock
 * never expires a grace period; only timestamps written to the node are wall time.
 */
import type { ResourceClient } from '../../client/index.js';
import { deepCopy, getCondition } from '../nodeutil/index.js';
import { formatTimestamp, parseTimestamp, type Lease, type Node, type NodeCondition } from '../../api/index.js';

/** What the controller remembers of a node between passes. */
export interface NodeHealthData {
  /** The last status seen (or written). */
  status: Node['status'];
  /** Monotonic ms (Clock.monotonic) when the controller last saw a heartbeat. */
  probeTimestamp: number;
  /** Monotonic ms of the last Ready transition the controller saw. */
  readyTransitionTimestamp: number;
  lease?: Lease;
}

/** The result of one health check: the Ready condition as read, and as it now stands. */
export interface NodeHealthResult {
  observedReadyCondition: NodeCondition;
  currentReadyCondition: NodeCondition | undefined;
  /** The node as it now stands: the written one after a status update, else the cached one (do not mutate). */
  node: Node;
}

/** The conditions set to Unknown when a node goes silent; NetworkUnavailable is the control plane's and is left alone. */
const NODE_CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** Inputs of tryUpdateNodeHealth. */
export interface NodeHealthInputs {
  /** Wall time, for timestamps written to the node. */
  now: number;
  /** Monotonic time (Clock.monotonic), for every grace period. */
  monotonic: number;
  gracePeriods: { monitorMs: number; startupMs: number };
  lease: Lease | undefined;
  nodes: ResourceClient<Node>;
}

/** tryUpdateNodeHealth: updates `health` (in place, keyed by node) and, past grace, the node's status. Throws on a failed write. */
export async function tryUpdateNodeHealth(
  healthMap: Map<string, NodeHealthData>,
  nodeIn: Node,
  inp: NodeHealthInputs,
): Promise<NodeHealthResult> {
  // The cached node is only read; it is copied only when its status must be written (a pass over thousands of nodes stays cheap).
  const node = nodeIn;
  const name = node.metadata!.name!;
  const wall = inp.now;
  const now = inp.monotonic;
  // The creation time is wall time; carried into the monotonic domain as "this long ago".
  const createdWall = parseTimestamp(node.metadata?.creationTimestamp);
  const created = createdWall === undefined ? now : now - Math.max(0, wall - createdWall);
  let health = healthMap.get(name);
  let currentReady = getCondition(node.status?.conditions, 'Ready');
  let observed: NodeCondition;
  let gracePeriod: number;
  if (currentReady === undefined) {
    // Never posted: pretend a heartbeat at creation and allow the startup grace period.
    observed = {
      type: 'Ready',
      status: 'Unknown',
      lastHeartbeatTime: node.metadata?.creationTimestamp ?? null,
      lastTransitionTime: node.metadata?.creationTimestamp ?? null,
    };
    gracePeriod = inp.gracePeriods.startupMs;
    if (health !== undefined) health.status = node.status;
    else health = { status: node.status, probeTimestamp: created, readyTransitionTimestamp: created };
  } else {
    observed = { ...currentReady };
    gracePeriod = inp.gracePeriods.monitorMs;
  }
  const saved = health === undefined ? undefined : getCondition(health.status?.conditions, 'Ready');
  const savedLease = health?.lease;
  if (health === undefined) {
    health = { status: node.status, probeTimestamp: now, readyTransitionTimestamp: now };
  } else if (saved === undefined && currentReady !== undefined) {
    health = { status: node.status, probeTimestamp: now, readyTransitionTimestamp: now };
  } else if (saved !== undefined && currentReady === undefined) {
    health = { status: node.status, probeTimestamp: now, readyTransitionTimestamp: now };
  } else if (
    saved !== undefined &&
    currentReady !== undefined &&
    saved.lastHeartbeatTime !== currentReady.lastHeartbeatTime
  ) {
    const transition =
      saved.lastTransitionTime !== currentReady.lastTransitionTime ? now : health.readyTransitionTimestamp;
    health = { status: node.status, probeTimestamp: now, readyTransitionTimestamp: transition };
  }
  // Any lease renewal is a heartbeat: a kubelet renewing its lease but never posting status counts as healthy.
  const renew = parseTimestamp(inp.lease?.spec?.renewTime);
  if (
    inp.lease !== undefined &&
    (savedLease === undefined || (parseTimestamp(savedLease.spec?.renewTime) ?? -Infinity) < (renew ?? -Infinity))
  ) {
    health.lease = inp.lease;
    health.probeTimestamp = now;
  }
  healthMap.set(name, health);

  if (now > health.probeTimestamp + gracePeriod) {
    const ts = formatTimestamp(wall);
    const updated = deepCopy(node);
    updated.status ??= {};
    const conditions = (updated.status.conditions ??= []);
    for (const type of NODE_CONDITION_TYPES) {
      const c = getCondition(conditions, type);
      if (c === undefined) {
        conditions.push({
          type,
          status: 'Unknown',
          reason: 'NodeStatusNeverUpdated',
          message: 'Kubelet never posted node status.',
          lastHeartbeatTime: updated.metadata?.creationTimestamp ?? null,
          lastTransitionTime: ts,
        });
      } else if (c.status !== 'Unknown') {
        c.status = 'Unknown';
        c.reason = 'NodeStatusUnknown';
        c.message = 'Kubelet stopped posting node status.';
        c.lastTransitionTime = ts;
      }
    }
    currentReady = getCondition(conditions, 'Ready');
    if (!sameCondition(currentReady, observed)) {
      const written = await inp.nodes.updateStatus(updated);
      healthMap.set(name, {
        status: updated.status,
        probeTimestamp: health.probeTimestamp,
        readyTransitionTimestamp: now,
        ...(inp.lease !== undefined ? { lease: inp.lease } : {}),
      });
      return { observedReadyCondition: observed, currentReadyCondition: currentReady, node: written };
    }
  }
  return { observedReadyCondition: observed, currentReadyCondition: currentReady, node };
}

function sameCondition(a: NodeCondition | undefined, b: NodeCondition): boolean {
  return (
    a !== undefined &&
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastHeartbeatTime === b.lastHeartbeatTime &&
    a.lastTransitionTime === b.lastTransitionTime
  );
}
