/**
 * Counters and histograms for the per-request hot path. prom-client validates
 * and hashes the label object on every inc/observe, even through a child from
 * `labels()`; here a child is resolved once per label set and an observation
 * is a few additions. Both register in a prom-client Registry through its
 * metric contract (get, getForPromString, reset), so /metrics prints them the
 * way prom-client's own Counter and Histogram do.
 */
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface Sample {
  labels: Labels | Record<string, string | number>;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

/** What both metric kinds share: the name, the label names and the children by label set. */
abstract class Family<C extends { readonly labels: Labels }> {
  protected readonly children = new Map<string, C>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registers: Registry[],
  ) {
    // prom-client's Registry reads a metric through get()/getForPromString(); its TypeScript type wants its own classes.
    for (const r of registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The child of one label set, created on first use; keep it and update it without further lookups. */
  labels(labels: Labels): C {
    for (const k of Object.keys(labels))
      if (!this.labelNames.includes(k))
        throw new Error(`Added label "${k}" is not included in initial labelset: ${this.labelNames.join(', ')}`);
    const key = this.labelNames.map((n) => labels[n] ?? '').join('\u0000');
    let c = this.children.get(key);
    if (c === undefined) this.children.set(key, (c = this.newChild({ ...labels })));
    return c;
  }

  protected abstract newChild(labels: Labels): C;

  /** Zeroes every child in place (children already handed out stay valid). */
  abstract reset(): void;

  /** The samples with each series' labels in `sharedLabels`, as the Registry formats them. */
  abstract getForPromString(): Promise<MetricData>;

  /** The samples with all labels merged, as prom-client's get() returns them (JSON export). */
  async get(): Promise<MetricData> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...sharedLabels, ...labels },
    }));
    return data;
  }

  protected data(type: MetricData['type'], values: Sample[]): MetricData {
    return { name: this.name, help: this.help, type, values, aggregator: 'sum' };
  }
}

/** One series of a FastCounter. */
export class CounterChild {
  value = 0;
  constructor(readonly labels: Labels) {}
  /** Adds one (or `n`). */
  inc(n = 1): void {
    this.value += n;
  }
}

/** A labelled counter with resolve-once children. */
export class FastCounter extends Family<CounterChild> {
  protected newChild(labels: Labels): CounterChild {
    return new CounterChild(labels);
  }

  reset(): void {
    for (const c of this.children.values()) c.value = 0;
  }

  getForPromString(): Promise<MetricData> {
    const values: Sample[] = [];
    for (const c of this.children.values()) if (c.value > 0) values.push({ labels: c.labels, value: c.value });
    return Promise.resolve(this.data('counter', values));
  }
}

/** One series of a FastHistogram. */
export class HistogramChild {
  sum = 0;
  count = 0;
  /** Per-bucket (not cumulative) counts; the last slot is above every bound. */
  readonly counts: Float64Array;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Records one value. */
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

/** A labelled histogram with resolve-once children. */
export class FastHistogram extends Family<HistogramChild> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
    registers: Registry[],
  ) {
    super(name, help, labelNames, registers);
  }

  protected newChild(labels: Labels): HistogramChild {
    return new HistogramChild(labels, this.buckets);
  }

  reset(): void {
    for (const c of this.children.values()) {
      c.sum = 0;
      c.count = 0;
      c.counts.fill(0);
    }
  }

  getForPromString(): Promise<MetricData> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const c of this.children.values()) {
      if (c.count === 0) continue;
      let acc = 0;
      this.buckets.forEach((le, i) => {
        acc += c.counts[i]!;
        values.push({ labels: { le }, sharedLabels: c.labels, value: acc, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: c.labels, value: c.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: c.labels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: c.labels, value: c.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve(this.data('histogram', values));
  }
}
