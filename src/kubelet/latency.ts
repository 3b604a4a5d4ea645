/**
 * Simulated pod start-up latency: a log-normal distribution fitted to a
 * median and a 99th percentile, the shape start-up times have in practice
 * (most pods quick, a long tail).
 */

/** A sampler of delays in ms. */
export type LatencySampler = () => number;

/** Φ⁻¹(0.99). */
const Z99 = 2.3263478740408408;

/** A log-normal sampler with the given p50 and p99 (ms); p99 <= p50 gives a constant. */
export function logNormalLatency(p50Ms: number, p99Ms: number, random: () => number = Math.random): LatencySampler {
  if (p50Ms <= 0) return () => 0;
  const sigma = p99Ms > p50Ms ? Math.log(p99Ms / p50Ms) / Z99 : 0;
  const mu = Math.log(p50Ms);
  return () => {
    if (sigma === 0) return p50Ms;
    // Box-Muller; 1 - random() keeps the log argument in (0, 1].
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.exp(mu + sigma * z);
  };
}

/** Parses "p50ms,p99ms" (plain numbers of ms, or durations like 1s,3s). */
export function parseLatency(text: string, parse: (d: string) => number): { p50Ms: number; p99Ms: number } {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length !== 2) throw new Error(`want p50,p99 (ms), got "${text}"`);
  const ms = (p: string): number => (/^\d+(\.\d+)?$/.test(p) ? Number(p) : parse(p));
  const [p50Ms, p99Ms] = [ms(parts[0]!), ms(parts[1]!)];
  if (p99Ms < p50Ms) throw new Error(`p99 (${p99Ms}) is below p50 (${p50Ms})`);
  return { p50Ms, p99Ms };
}
