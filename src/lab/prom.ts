/**
 * Reads the Prometheus text format the API server's /metrics serves, and
 * computes quantiles from histogram buckets the way PromQL's
 * histogram_quantile does (linear interpolation inside the bucket).
 */

/** One sample: metric name, labels, value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses exposition text; comment lines and malformed lines are skipped. */
export function parsePrometheus(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    if (m[2] !== undefined) for (const l of m[2].matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    const value = m[3] === '+Inf' ? Infinity : Number(m[3]);
    if (!Number.isNaN(value)) out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** Cumulative bucket counts of one histogram series: upper bounds ascending, the last one +Inf. */
export interface Buckets {
  le: number[];
  counts: number[];
}

/** The bucket series of a histogram, keyed by `key(labels)` (labels other than `le`). */
export function histograms(
  samples: PromSample[],
  name: string,
  key: (labels: Record<string, string>) => string | undefined,
): Map<string, Buckets> {
  const raw = new Map<string, Map<number, number>>();
  for (const s of samples) {
    if (s.name !== `${name}_bucket`) continue;
    const k = key(s.labels);
    if (k === undefined) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    let m = raw.get(k);
    if (m === undefined) raw.set(k, (m = new Map()));
    // Several label sets may fold into one key: sum them bucket by bucket.
    m.set(le, (m.get(le) ?? 0) + s.value);
  }
  const out = new Map<string, Buckets>();
  for (const [k, m] of raw) {
    const le = [...m.keys()].sort((a, b) => a - b);
    out.set(k, { le, counts: le.map((b) => m.get(b)!) });
  }
  return out;
}

/** later − earlier, bucket by bucket (a window of a cumulative histogram). */
export function subtractBuckets(later: Buckets, earlier: Buckets | undefined): Buckets {
  if (earlier === undefined) return later;
  const prev = new Map(earlier.le.map((b, i) => [b, earlier.counts[i]!]));
  return { le: later.le, counts: later.counts.map((c, i) => Math.max(0, c - (prev.get(later.le[i]!) ?? 0))) };
}

/** Observations in a histogram. */
export function bucketTotal(b: Buckets): number {
  return b.counts[b.counts.length - 1] ?? 0;
}

/** The q-quantile in the histogram's unit, like histogram_quantile; NaN when empty. An answer in the +Inf bucket is the highest finite bound. */
export function histogramQuantile(q: number, b: Buckets): number {
  const total = bucketTotal(b);
  if (total === 0) return NaN;
  const rank = q * total;
  for (let i = 0; i < b.le.length; i++) {
    if (b.counts[i]! < rank) continue;
    const upper = b.le[i]!;
    const lower = i === 0 ? 0 : b.le[i - 1]!;
    if (upper === Infinity) return lower;
    const below = i === 0 ? 0 : b.counts[i - 1]!;
    const inBucket = b.counts[i]! - below;
    return inBucket === 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
  }
  return b.le[b.le.length - 2] ?? NaN;
}

/** The sum of the samples of one counter or gauge whose labels pass `filter`. */
export function sumOf(
  samples: PromSample[],
  name: string,
  filter: (labels: Record<string, string>) => boolean = () => true,
): number {
  let v = 0;
  for (const s of samples) if (s.name === name && filter(s.labels)) v += s.value;
  return v;
}
