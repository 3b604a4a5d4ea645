/**
 * The capacity model behind `kscale plan`: every figure (API requests/s per
 * resource and verb, storage writes and bytes/s, watch events and bytes/s,
 * memory and CPU per component) is a sum of coefficient × driver, and the
 * drivers come from the cluster's size and settings: nodes, pods, lease
 * renewals/s (a node renews every quarter of its lease duration), node status
 * computations/s (one per --node-status-update-frequency), and pods created
 * per second. `kscale lab calibrate` fits the coefficients (fit.ts) from lab
 * reports; deploy/capacity/coefficients.json ships the fitted defaults.
 */

/** The drivers, in the order coefficients name them; `const` is 1. */
export const DRIVERS = ['const', 'nodes', 'pods', 'leaseRenewalsPerSec', 'nodeStatusPerSec', 'podsPerSec'] as const;

/** One driver's name. */
export type Driver = (typeof DRIVERS)[number];

/** Driver values of one cluster. */
export type Drivers = Record<Driver, number>;

/** What a figure measures, for grouping and units in the table. */
export type FigureGroup = 'requests' | 'storage' | 'watch' | 'memory' | 'cpu';

/** The drivers a figure of each group is a sum over: rates follow the rate drivers, memory the object counts. */
export const GROUP_DRIVERS: Record<FigureGroup, Driver[]> = {
  requests: ['leaseRenewalsPerSec', 'nodeStatusPerSec', 'podsPerSec'],
  storage: ['const', 'leaseRenewalsPerSec', 'nodeStatusPerSec', 'podsPerSec'],
  watch: ['const', 'leaseRenewalsPerSec', 'nodeStatusPerSec', 'podsPerSec'],
  memory: ['const', 'nodes', 'pods'],
  cpu: ['const', 'leaseRenewalsPerSec', 'nodeStatusPerSec', 'podsPerSec', 'pods'],
};

/** One figure's coefficients, by driver. */
export interface FigureModel {
  group: FigureGroup;
  coefficients: Partial<Drivers>;
  /** Lab runs the fit used (0: not fitted, e.g. an assumption). */
  samples: number;
}

/** The contents of a coefficients file. */
export interface CapacityCoefficients {
  kind: 'kscale-capacity-coefficients';
  version: 1;
  /** When and from what the coefficients were fitted. */
  fittedAt: string;
  fittedFrom: string[];
  /** Mean bytes of one watch event on the wire (watch bytes/s = events/s × this; not yet measured by the server). */
  watchEventBytes: number;
  /** By figure id: `requests:<resource>[/<subresource>] <VERB>`, `storage:writes`, `memory:<component>`, … */
  figures: Record<string, FigureModel>;
}

/** What `kscale plan` is asked about. */
export interface PlanInput {
  nodes: number;
  podsPerNode: number;
  /** Pods created per second (steady churn). */
  podRate: number;
  leaseDurationS: number;
  nodeStatusUpdateFrequencyS: number;
}

/** The drivers of a planned cluster: a lease renewed every quarter of its duration, like the kubelet. */
export function driversFor(p: PlanInput): Drivers {
  return {
    const: 1,
    nodes: p.nodes,
    pods: p.nodes * p.podsPerNode,
    leaseRenewalsPerSec: p.leaseDurationS > 0 ? p.nodes / (p.leaseDurationS / 4) : 0,
    nodeStatusPerSec: p.nodeStatusUpdateFrequencyS > 0 ? p.nodes / p.nodeStatusUpdateFrequencyS : 0,
    podsPerSec: p.podRate,
  };
}

/** One predicted figure, with each driver's share of it. */
export interface Prediction {
  id: string;
  group: FigureGroup;
  value: number;
  terms: Partial<Drivers>;
}

/** Σ coefficient × driver for one figure. */
export function predictFigure(id: string, m: FigureModel, d: Drivers): Prediction {
  const terms: Partial<Drivers> = {};
  let value = 0;
  for (const k of DRIVERS) {
    const c = m.coefficients[k];
    if (c === undefined) continue;
    terms[k] = c * d[k];
    value += c * d[k];
  }
  return { id, group: m.group, value, terms };
}

/** Every figure of the model for `d`, plus watch bytes/s from watch events/s. */
export function predict(c: CapacityCoefficients, d: Drivers): Prediction[] {
  const out = Object.entries(c.figures).map(([id, m]) => predictFigure(id, m, d));
  const events = out.find((p) => p.id === 'watch:events');
  if (events !== undefined)
    out.push({
      id: 'watch:bytes',
      group: 'watch',
      value: events.value * c.watchEventBytes,
      terms: Object.fromEntries(Object.entries(events.terms).map(([k, v]) => [k, v * c.watchEventBytes])),
    });
  return out;
}

/** The dominant cost: the component spending the most CPU, and the driver contributing most to it. */
export function dominantCost(
  predictions: Prediction[],
): { component: string; cpu: number; driver: Driver; share: number } | undefined {
  const cpu = predictions.filter((p) => p.group === 'cpu').sort((a, b) => b.value - a.value)[0];
  if (cpu === undefined || cpu.value <= 0) return undefined;
  const [driver, v] = (Object.entries(cpu.terms) as [Driver, number][]).sort((a, b) => b[1] - a[1])[0]!;
  return { component: cpu.id.slice('cpu:'.length), cpu: cpu.value, driver, share: v / cpu.value };
}
