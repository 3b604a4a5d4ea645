/**
 * Topology hints, like k8s.io/endpointslice's topologycache and trafficdist:
 * - `spec.trafficDistribution: PreferClose` hints each endpoint to its own zone;
 * - the `service.kubernetes.io/topology-mode: Auto` annotation allocates ready
 *   endpoints to zones in proportion to the zones' allocatable CPU (ready
 *   nodes only), moving surplus endpoints' hints to zones short of them, and
 *   gives up (no hints at all) when node information is missing, there are
 *   fewer endpoints than zones, or a zone would be overloaded by more than 20%.
 * kube-proxies route to hinted endpoints of their own zone.
 */
import { getCondition } from '../nodeutil/index.js';
import { LABEL_TOPOLOGY_ZONE } from '../endpointutil/index.js';
import type { Endpoint, Node, Service } from '../../api/index.js';

/** The annotation that turns on proportional hints (and its deprecated predecessor). */
export const ANNOTATION_TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
export const ANNOTATION_TOPOLOGY_AWARE_HINTS = 'service.kubernetes.io/topology-aware-hints';
/** How far above its CPU share a zone's endpoints may be before hints are withheld (upstream's overloadThreshold). */
export const OVERLOAD_THRESHOLD = 0.2;

/** How a Service wants its hints. */
export type HintsMode = 'none' | 'auto' | 'preferClose';

/** The hints mode of a Service. */
export function hintsMode(svc: Service): HintsMode {
  const td = svc.spec?.trafficDistribution;
  if (td === 'PreferClose' || td === 'PreferSameZone') return 'preferClose';
  const a = svc.metadata?.annotations ?? {};
  const mode = (a[ANNOTATION_TOPOLOGY_MODE] ?? a[ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? '').toLowerCase();
  return mode === 'auto' ? 'auto' : 'none';
}

/** The outcome of computing hints: the hint zone per endpoint (undefined: no hint), or why none were given. */
export interface HintsResult {
  hints: (string | undefined)[];
  disabledReason?: string;
}

/** Zone CPU shares of the ready nodes, kept current from the node informer. */
export class TopologyCache {
  private cpuRatiosByZone = new Map<string, number>();
  private sufficientNodeInfo = false;
  /** Services whose slices currently carry Auto hints (for the Enabled/Disabled Events). */
  readonly hintsPopulated = new Set<string>();

  /** Recomputes zone shares; returns true when they changed. */
  setNodes(nodes: readonly Node[]): boolean {
    const cpu = new Map<string, number>();
    let total = 0;
    let sufficient = true;
    for (const n of nodes) {
      if (getCondition(n.status?.conditions, 'Ready')?.status !== 'True') continue;
      if ('node-role.kubernetes.io/control-plane' in (n.metadata?.labels ?? {})) continue;
      const zone = n.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
      const alloc = ((n.status?.allocatable ?? {}) as Record<string, string>).cpu;
      if (zone === undefined || zone === '' || alloc === undefined) {
        sufficient = false;
        continue;
      }
      const c = cpuCores(alloc);
      if (c === undefined) {
        sufficient = false;
        continue;
      }
      cpu.set(zone, (cpu.get(zone) ?? 0) + c);
      total += c;
    }
    const ratios = new Map<string, number>();
    if (total > 0) for (const [z, c] of cpu) ratios.set(z, c / total);
    sufficient &&= ratios.size > 0;
    const changed =
      sufficient !== this.sufficientNodeInfo ||
      JSON.stringify([...ratios].sort()) !== JSON.stringify([...this.cpuRatiosByZone].sort());
    this.cpuRatiosByZone = ratios;
    this.sufficientNodeInfo = sufficient;
    return changed;
  }

  /** Hints for `endpoints` (all of a Service's endpoints, in slice order) under `mode`. */
  hintsFor(mode: HintsMode, endpoints: readonly Endpoint[]): HintsResult {
    if (mode === 'none') return { hints: endpoints.map(() => undefined) };
    if (mode === 'preferClose')
      return { hints: endpoints.map((e) => (e.zone !== undefined && e.zone !== '' ? e.zone : undefined)) };
    return this.autoHints(endpoints);
  }

  private autoHints(endpoints: readonly Endpoint[]): HintsResult {
    const none = (reason: string): HintsResult => ({ hints: endpoints.map(() => undefined), disabledReason: reason });
    if (!this.sufficientNodeInfo)
      return none('Insufficient Node information: allocatable CPU or zone not specified on one or more nodes');
    const ready = endpoints.map((e, i) => ({ e, i })).filter(({ e }) => e.conditions?.ready === true);
    if (ready.some(({ e }) => e.zone === undefined || e.zone === ''))
      return none('One or more endpoints do not have a zone specified');
    const zones = [...this.cpuRatiosByZone.keys()].sort();
    if (ready.length < zones.length) return none('Insufficient number of endpoints');
    if (ready.some(({ e }) => !this.cpuRatiosByZone.has(e.zone!)))
      return none('One or more endpoints are in a zone without ready nodes');
    const allocation = allocate(zones.map((z) => this.cpuRatiosByZone.get(z)! * ready.length));
    const want = new Map(zones.map((z, i) => [z, allocation[i]!]));
    const hints: (string | undefined)[] = endpoints.map(() => undefined);
    const given = new Map<string, number>(zones.map((z) => [z, 0]));
    const surplus: number[] = [];
    // Endpoints keep their own zone while it still needs endpoints; the rest are handed to zones short of them.
    for (const { e, i } of ready) {
      if (given.get(e.zone!)! < want.get(e.zone!)!) {
        hints[i] = e.zone;
        given.set(e.zone!, given.get(e.zone!)! + 1);
      } else surplus.push(i);
    }
    for (const z of zones)
      while (given.get(z)! < want.get(z)! && surplus.length > 0) {
        hints[surplus.shift()!] = z;
        given.set(z, given.get(z)! + 1);
      }
    for (const z of zones) {
      const desired = this.cpuRatiosByZone.get(z)! * ready.length;
      if (given.get(z)! > desired * (1 + OVERLOAD_THRESHOLD) + 1e-9)
        return none(
          `Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (${OVERLOAD_THRESHOLD * 100}%)`,
        );
    }
    return { hints };
  }
}

/** Whole endpoints per zone from fractional shares: at least one each, largest remainders first, summing to the total. */
function allocate(desired: number[]): number[] {
  const total = Math.round(desired.reduce((a, b) => a + b, 0));
  const out = desired.map((d) => Math.max(1, Math.floor(d)));
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = desired.map((d, i) => ({ r: d - Math.floor(d), i })).sort((a, b) => b.r - a.r);
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length, left--) out[order[k]!.i]!++;
  return out;
}

/** Cores of a CPU quantity ("8", "7500m", "0.5"); undefined when malformed. */
function cpuCores(q: string | number): number | undefined {
  const s = String(q);
  const n = s.endsWith('m') ? Number(s.slice(0, -1)) / 1000 : Number(s);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
