/** Exact percentiles of samples, for the lab's client-side and pod startup figures. */

/** p50/p90/p99/max and the count of a set of samples. */
export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The nearest-rank percentile (q in [0, 1]) of sorted values. */
export function percentileOf(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** Percentiles of unsorted samples (NaN fields when empty). */
export function percentiles(values: number[]): Percentiles {
  const s = Float64Array.from(values).sort();
  const a = Array.from(s);
  return {
    count: a.length,
    p50: percentileOf(a, 0.5),
    p90: percentileOf(a, 0.9),
    p99: percentileOf(a, 0.99),
    max: a.length === 0 ? NaN : a[a.length - 1]!,
  };
}

/** The empirical CDF of samples, thinned to at most `points` points: [value, fraction]. */
export function cdfOf(values: number[], points = 200): { x: number[]; y: number[] } {
  const s = Array.from(Float64Array.from(values).sort());
  const x: number[] = [];
  const y: number[] = [];
  if (s.length === 0) return { x, y };
  const step = Math.max(1, Math.floor(s.length / points));
  for (let i = step - 1; i < s.length; i += step) {
    x.push(s[i]!);
    y.push((i + 1) / s.length);
  }
  if (x[x.length - 1] !== s[s.length - 1]) {
    x.push(s[s.length - 1]!);
    y.push(1);
  }
  return { x, y };
}
