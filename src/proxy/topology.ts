/**
 * CategorizeEndpoints, like upstream's pkg/proxy/topology.go: which endpoints
 * serve traffic that enters through the cluster IP and through external
 * paths, given the traffic policies, topology hints and this node. Ready
 * endpoints win; when there are none, serving-but-terminating ones are used,
 * as upstream's ProxyTerminatingEndpoints does.
 */
import type { Endpoint, NodeInfo, ServicePortInfo } from './types.js';

/** The endpoint sets a proxier renders for one service port. */
export interface CategorizedEndpoints {
  /** Endpoints for Cluster-policy traffic (topology hints applied); empty when no traffic uses the Cluster policy. */
  readonly cluster: readonly Endpoint[];
  /** Local endpoints for Local-policy traffic; empty when neither policy is Local. */
  readonly local: readonly Endpoint[];
  /** Whether any endpoint could serve: false means the service rejects. */
  readonly hasEndpoints: boolean;
  /** Whether topology hints filtered the cluster endpoints. */
  readonly usedHints: boolean;
}

/** Whether hints may be honoured: enabled, the node has a zone, every ready endpoint has hints, and one names this zone. */
export function canUseTopology(endpoints: readonly Endpoint[], svc: ServicePortInfo, node: NodeInfo): boolean {
  if (!svc.hintsEnabled || node.zone === '') return false;
  let hasZone = false;
  for (const e of endpoints) {
    if (!e.ready) continue;
    if (e.zoneHints === undefined) return false;
    if (e.zoneHints.includes(node.zone)) hasZone = true;
  }
  return hasZone;
}

function pick(endpoints: readonly Endpoint[], accept: (e: Endpoint) => boolean): Endpoint[] {
  const ready = endpoints.filter((e) => e.ready && accept(e));
  if (ready.length > 0) return ready;
  return endpoints.filter((e) => e.serving && e.terminating && accept(e));
}

/** Splits a service port's endpoints into the cluster and local sets. */
export function categorizeEndpoints(
  endpoints: readonly Endpoint[],
  svc: ServicePortInfo,
  node: NodeInfo,
): CategorizedEndpoints {
  const needCluster =
    !svc.internalPolicyLocal || (!svc.externalPolicyLocal && (svc.nodePort !== 0 || svc.externalIPs.length > 0));
  const needLocal = svc.internalPolicyLocal || svc.externalPolicyLocal;
  let usedHints = false;
  let cluster: Endpoint[] = [];
  if (needCluster) {
    usedHints = canUseTopology(endpoints, svc, node);
    cluster = usedHints ? pick(endpoints, (e) => e.zoneHints!.includes(node.zone)) : pick(endpoints, () => true);
    // Hints that leave nothing fall back to every endpoint, as upstream does.
    if (usedHints && cluster.length === 0) {
      usedHints = false;
      cluster = pick(endpoints, () => true);
    }
  }
  const local = needLocal ? pick(endpoints, (e) => e.isLocal) : [];
  return {
    cluster,
    local,
    hasEndpoints: cluster.length > 0 || local.length > 0 || (needLocal && pick(endpoints, () => true).length > 0),
    usedHints,
  };
}
