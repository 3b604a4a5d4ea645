/**
 * Fits the capacity model's coefficients from lab reports: for each figure,
 * non-negative least squares over the runs that measured it (a cost never
 * goes down as its driver grows), with a tiny ridge term so drivers that move
 * together in a size sweep (nodes, leases and status all scale with the node
 * count) share the weight instead of making the fit singular.
 */
import {
  DRIVERS,
  GROUP_DRIVERS,
  type CapacityCoefficients,
  type Driver,
  type Drivers,
  type FigureGroup,
} from './model.js';

/** One lab run as the fit sees it: its drivers and its measured figures (report.json's `capacity`). */
export interface CapacityMeasurement {
  /** Seconds the rates are averaged over. */
  durationS: number;
  drivers: Drivers;
  /** By figure id, as CapacityCoefficients.figures. */
  figures: Record<string, number>;
}

/**
 * Non-negative least squares min ||Xb − y||² + λ||b||² (b ≥ 0) by coordinate descent on columns scaled to unit
 * norm; exact enough for the handful of drivers a figure has.
 */
export function nnls(X: number[][], y: number[], ridge = 1e-9, iterations = 5_000): number[] {
  const k = X[0]?.length ?? 0;
  const scale = Array.from({ length: k }, (_, j) => Math.sqrt(X.reduce((s, row) => s + row[j]! ** 2, 0)) || 1);
  const Z = X.map((row) => row.map((v, j) => v / scale[j]!));
  const b = new Array<number>(k).fill(0);
  const r = [...y];
  for (let it = 0; it < iterations; it++) {
    let moved = 0;
    for (let j = 0; j < k; j++) {
      let g = 0;
      for (let i = 0; i < Z.length; i++) g += Z[i]![j]! * r[i]!;
      const next = Math.max(0, (b[j]! + g) / (1 + ridge));
      const delta = next - b[j]!;
      if (delta === 0) continue;
      for (let i = 0; i < Z.length; i++) r[i]! -= delta * Z[i]![j]!;
      b[j] = next;
      moved = Math.max(moved, Math.abs(delta));
    }
    if (moved < 1e-13) break;
  }
  return b.map((v, j) => v / scale[j]!);
}

/** The group of a figure id (`requests:pods POST` → requests). */
export function groupOf(id: string): FigureGroup {
  const g = id.slice(0, id.indexOf(':'));
  if (!(g in GROUP_DRIVERS)) throw new Error(`figure ${id}: unknown group ${g}`);
  return g as FigureGroup;
}

/** Fits every figure measured by at least one run; drivers that never vary beyond zero get no coefficient. */
export function fitCoefficients(
  runs: CapacityMeasurement[],
  fittedFrom: string[],
  watchEventBytes: number,
): CapacityCoefficients {
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.figures)))].sort();
  const figures: CapacityCoefficients['figures'] = {};
  for (const id of ids) {
    const group = groupOf(id);
    const rows = runs.filter((r) => Number.isFinite(r.figures[id]));
    const drivers = GROUP_DRIVERS[group].filter((d: Driver) => rows.some((r) => r.drivers[d] !== 0));
    const b = nnls(
      rows.map((r) => drivers.map((d) => r.drivers[d])),
      rows.map((r) => r.figures[id]!),
    );
    const coefficients: Partial<Drivers> = {};
    drivers.forEach((d, j) => (coefficients[d] = round(b[j]!)));
    figures[id] = { group, coefficients, samples: rows.length };
  }
  return {
    kind: 'kscale-capacity-coefficients',
    version: 1,
    fittedAt: new Date().toISOString(),
    fittedFrom,
    watchEventBytes,
    figures,
  };
}

/** Six significant digits: the file stays readable and the fit's noise is far larger. */
function round(v: number): number {
  return v === 0 ? 0 : Number(v.toPrecision(6));
}

/** Checks a parsed coefficients file; throws with the first thing wrong. */
export function checkCoefficients(v: unknown, source: string): CapacityCoefficients {
  const c = v as Partial<CapacityCoefficients>;
  if (c?.kind !== 'kscale-capacity-coefficients' || c.version !== 1)
    throw new Error(`${source}: not a kscale capacity coefficients file (kind/version)`);
  if (typeof c.figures !== 'object' || c.figures === null) throw new Error(`${source}: no figures`);
  for (const [id, f] of Object.entries(c.figures)) {
    groupOf(id);
    for (const [d, x] of Object.entries(f.coefficients ?? {}))
      if (!(DRIVERS as readonly string[]).includes(d) || typeof x !== 'number' || !Number.isFinite(x))
        throw new Error(`${source}: figure ${id}: bad coefficient ${d}=${String(x)}`);
  }
  return c as CapacityCoefficients;
}
