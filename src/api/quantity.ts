/**
 * resource.Quantity parsing: `<sign?><number><suffix>` with binary-SI (Ki..Ei),
 * decimal-SI (n, u, m, "", k, M, G, T, P, E) or decimal-exponent (e3, E-2)
 * suffixes. The scheduler and validation share these functions.
 */

/** Upstream's format error text, returned verbatim by the apiserver. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const GRAMMAR = /^([+-]?)(\d+\.?\d*|\.\d+)(.*)$/;

/** A quantity as an exact decimal: value = sign * digits * 10^exp10 * 2^exp2. */
interface Parsed {
  negative: boolean;
  digits: bigint;
  exp10: number;
  exp2: number;
}

/**
 * Parsed quantities by their text. Objects repeat the same few ("100m", "128Mi") on every write
 * and validation parses each, so remember them; bounded, as texts come from requests.
 */
const PARSED = new Map<string, Readonly<Parsed>>();
const MAX_PARSED = 4096;

function parse(input: string | number): Readonly<Parsed> {
  if (typeof input === 'string') {
    const hit = PARSED.get(input);
    if (hit !== undefined) return hit;
    const p = Object.freeze(parseText(input));
    if (PARSED.size < MAX_PARSED) PARSED.set(input, p);
    return p;
  }
  return parseText(input);
}

function parseText(input: string | number): Parsed {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new Error(QUANTITY_FORMAT_ERROR);
    input = String(input);
  }
  const m = GRAMMAR.exec(input.trim() === input ? input : '');
  if (!m) throw new Error(QUANTITY_FORMAT_ERROR);
  const [, sign, num, suffix] = m;
  const [whole, frac = ''] = num.split('.');
  let exp10 = -frac.length;
  let exp2 = 0;
  if (suffix in BINARY) exp2 = BINARY[suffix];
  else if (suffix in DECIMAL) exp10 += DECIMAL[suffix];
  else if (/^[eE][+-]?\d+$/.test(suffix)) exp10 += Number(suffix.slice(1));
  else
    throw new Error(
      /^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix) ? "unable to parse quantity's suffix" : QUANTITY_FORMAT_ERROR,
    );
  return { negative: sign === '-', digits: BigInt(`${whole || '0'}${frac}`), exp10, exp2 };
}

/** The value of a quantity as a number ("100m" → 0.1, "1Gi" → 1073741824, "1e3" → 1000); throws on bad syntax. */
export function parseQuantity(q: string | number): number {
  const p = parse(q);
  const v = Number(p.digits) * 10 ** p.exp10 * 2 ** p.exp2;
  return p.negative ? -v : v;
}

/** Like parseQuantity, but undefined instead of throwing. */
export function tryParseQuantity(q: unknown): number | undefined {
  if (typeof q !== 'string' && typeof q !== 'number') return undefined;
  try {
    return parseQuantity(q);
  } catch {
    return undefined;
  }
}

/** True when `q` parses as a quantity. */
export const isQuantity = (q: unknown): boolean => tryParseQuantity(q) !== undefined;

// Exact ceil(value * 10^scale), done in bigint so "0.1" * 1000 is 100, not 100.00000000000001.
function scaledCeil(p: Parsed, scale: number): bigint {
  let n = p.digits * 2n ** BigInt(p.exp2);
  const e = p.exp10 + scale;
  if (e >= 0) n *= 10n ** BigInt(e);
  else {
    const d = 10n ** BigInt(-e);
    const q = n / d;
    // Round away from zero like Quantity.MilliValue/Value, so "1n" CPU is 1m, not 0.
    n = q * d === n ? q : q + 1n;
  }
  return p.negative ? -n : n;
}

/** The value in thousandths, rounded up (CPU "250m" → 250, "1" → 1000), like Quantity.MilliValue. */
export const milliValue = (q: string | number): number => Number(scaledCeil(parse(q), 3));

/** The integer value, rounded up (memory "1Ki" → 1024, "0.5" → 1), like Quantity.Value. */
export const quantityValue = (q: string | number): number => Number(scaledCeil(parse(q), 0));

/** Compares two quantities: negative, zero or positive, like Quantity.Cmp. */
export function compareQuantities(a: string | number, b: string | number): number {
  // Compare at nanounits exactly; quantities below 1n do not exist upstream either.
  const x = scaledCeil(parse(a), 9);
  const y = scaledCeil(parse(b), 9);
  return x < y ? -1 : x > y ? 1 : 0;
}
