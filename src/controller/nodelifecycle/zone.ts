/**
 * Zones and their disruption states, like node_lifecycle_controller.go's
 * ComputeZoneState and nodetopology.GetZoneKey.
 */
import type { Node, NodeCondition } from '../../api/index.js';

/** A zone's state: Initial until first computed, then Normal, PartialDisruption or FullDisruption. */
export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** topology.kubernetes.io/region (or its beta failure-domain label) and zone (likewise), joined like upstream's GetZoneKey. */
export function getZoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\x00:${zone}`;
}

/** A zone key without the separator, for logs and metrics. */
export function zoneName(key: string): string {
  return key.replace(':\x00:', '/');
}

/**
 * ComputeZoneState: FullDisruption when no node is Ready, PartialDisruption when more
 * than two are not Ready and they are at least `threshold` of the zone, else Normal.
 * A missing Ready condition counts as not Ready. Returns the unhealthy count too.
 */
export function computeZoneState(
  readyConditions: readonly (NodeCondition | undefined)[],
  threshold: number,
): { unhealthy: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) {
    if (c?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { unhealthy: notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= threshold)
    return { unhealthy: notReady, state: 'PartialDisruption' };
  return { unhealthy: notReady, state: 'Normal' };
}

/** The NoExecute tainting rate of a zone in `state` with `zoneSize` nodes, like setLimiterInZone. */
export function zoneEvictionRate(
  state: ZoneState,
  zoneSize: number,
  opts: { nodeEvictionRate: number; secondaryNodeEvictionRate: number; largeClusterSizeThreshold: number },
): number {
  switch (state) {
    case 'PartialDisruption':
      // ReducedQPSFunc: small zones stop evicting altogether.
      return zoneSize > opts.largeClusterSizeThreshold ? opts.secondaryNodeEvictionRate : 0;
    case 'FullDisruption':
      // HealthyQPSFunc: a zone that is wholly down is evicted at the normal rate (other zones are up).
      return opts.nodeEvictionRate;
    default:
      return opts.nodeEvictionRate;
  }
}
