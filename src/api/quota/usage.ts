/**
 * Usage arithmetic for quotas: resource lists in thousandths (milli-units), so
 * sums and comparisons are exact, and formatting back to quantity text as
 * upstream's Quantity.String would print the sum ("500m", "2", "1Gi").
 */
import { milliValue, tryParseQuantity } from '../quantity.js';
import type { ResourceList } from '../types/core.js';

/** Resource name to amount in thousandths. */
export type Usage = Map<string, number>;

/** A ResourceList as milli-units; unparsable quantities are left out. */
export function toUsage(list: ResourceList | undefined): Usage {
  const u: Usage = new Map();
  for (const [k, v] of Object.entries(list ?? {})) if (tryParseQuantity(v) !== undefined) u.set(k, milliValue(v));
  return u;
}

/** Adds `b` into `a` (for every name of `b`). */
export function addUsage(a: Usage, b: Usage): Usage {
  for (const [k, v] of b) a.set(k, (a.get(k) ?? 0) + v);
  return a;
}

const BINARY: [string, number][] = [
  ['Ei', 2 ** 60],
  ['Pi', 2 ** 50],
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
];
const DECIMAL: [string, number][] = [
  ['E', 1e18],
  ['P', 1e15],
  ['T', 1e12],
  ['G', 1e9],
  ['M', 1e6],
  ['k', 1e3],
];

/** Quantity text for an amount in thousandths: milli-units when fractional, else the largest exact suffix. */
export function formatMilli(milli: number): string {
  if (milli === 0) return '0';
  if (milli % 1000 !== 0) return `${milli}m`;
  const v = milli / 1000;
  for (const table of [BINARY, DECIMAL])
    for (const [suffix, size] of table) if (Math.abs(v) >= size && v % size === 0) return `${v / size}${suffix}`;
  return String(v);
}

/** A Usage as a ResourceList of quantity texts. */
export function toResourceList(u: Usage): ResourceList {
  const out: ResourceList = {};
  for (const k of [...u.keys()].sort()) out[k] = formatMilli(u.get(k)!);
  return out;
}

/** Upstream's prettyPrint of a ResourceList: sorted `name=quantity` pairs joined by commas. */
export const prettyPrint = (u: Usage): string =>
  [...u.keys()]
    .sort()
    .map((k) => `${k}=${formatMilli(u.get(k)!)}`)
    .join(',');
