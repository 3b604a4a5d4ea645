/**
 * Borrowing between priority levels, in the spirit of upstream's
 * apf_controller concurrency reallocation: each limited level's current
 * seats lie between its nominal limit less what it lends
 * (lendablePercent) and its nominal limit plus what it may borrow
 * (borrowingLimitPercent); within those bounds seats follow recent demand,
 * shared in proportion to nominal limits, and always sum to the total.
 */

/** One limited level's bounds and recent seat demand. */
export interface AllocationInput {
  nominal: number;
  min: number;
  max: number;
  demand: number;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Finds x such that the sum of clamp(x·nominal, lo, hi) is `total` (or as close as the bounds allow). */
function fairShares(nominal: number[], lo: number[], hi: number[], total: number): number[] {
  const at = (x: number): number[] => nominal.map((n, i) => clamp(x * n, lo[i]!, hi[i]!));
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  let low = 0;
  let high = 1;
  while (sum(at(high)) < total && high < 1e9) high *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (sum(at(mid)) < total) low = mid;
    else high = mid;
  }
  return at(high);
}

/** The current seats of each level, summing to `total` where the bounds allow. */
export function allocate(levels: AllocationInput[], total: number): number[] {
  if (levels.length === 0) return [];
  const nominal = levels.map((l) => l.nominal);
  const targets = levels.map((l) => clamp(l.demand, l.min, l.max));
  const wanted = targets.reduce((a, b) => a + b, 0);
  // Enough for every demand: the spare seats go out in proportion to nominal limits, up to each level's max.
  // Scarce: demands are cut back fairly, never below a level's unlendable seats.
  const shares =
    wanted <= total
      ? fairShares(
          nominal,
          targets,
          levels.map((l) => l.max),
          total,
        )
      : fairShares(
          nominal,
          levels.map((l) => l.min),
          targets,
          total,
        );
  return shares.map((s) => Math.max(1, Math.round(s)));
}
