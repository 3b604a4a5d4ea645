/**
 * Go-style durations for upstream-compatible flags ("5m0s", "1h", "300ms",
 * "10s"); a bare number means seconds.
 */

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration into milliseconds; throws on malformed input. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  if (t === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(t); m !== null; m = re.exec(t)) {
    total += Number(m[1]) * UNITS[m[2]];
    matched = re.lastIndex;
  }
  if (matched !== t.length || t.length === 0) throw new Error(`invalid duration: ${text}`);
  return total;
}
