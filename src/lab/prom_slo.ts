/**
 * `kscale up --prometheus`: the API-latency SLIs computed twice, by the
 * lab's own scrapes and by ClusterLoader2's PromQL against the Prometheus
 * the lab ran, side by side with a check that they agree within 5% or one
 * histogram bucket. Pod startup stays watch-based, as in ClusterLoader2.
 */
import type { ApiSnapshot } from './api_metrics.js';
import { bucketTotal, histogramQuantile, subtractBuckets } from './prom.js';
import { apiLatencyQuery, type RunningPrometheus } from './prometheus.js';

/** One SLI's p99 from both sources. */
export interface PromSloRow {
  resource: string;
  subresource: string;
  verb: string;
  scope: string;
  count: number;
  /** The lab's own p99 over the run, s. */
  lab: number;
  /** ClusterLoader2's PromQL p99 over the same range, s (null: Prometheus had no series). */
  promql: number | null;
  /**
   * The calls PromQL surely counts: those after the lab's first sample of the series past the range's start. Before
   * it, Prometheus's own first sample inside the range may come up to one scrape interval after the range starts,
   * and increase() cannot count a series' first sample (a burst that creates a series between two scrapes is
   * invisible to it, as in ClusterLoader2).
   */
  visible?: number;
  /** False for SLIs with fewer than MIN_CHECKED_CALLS visible calls. */
  checked: boolean;
  agree: boolean;
}

/** SLIs with fewer calls over the range (that PromQL can count) are shown but not checked. */
export const MIN_CHECKED_CALLS = 100;

/** The side-by-side table and the reported check. */
export interface PromSloReport {
  query: string;
  rangeS: number;
  rows: PromSloRow[];
  /** True when every checked SLI agrees within 5% or one bucket (and at least one was checked). */
  agree: boolean;
  /** Prometheus's `up` per scrape target at the end: whether each component's /metrics answered its last scrape. */
  targets?: { job: string; instance: string; up: boolean }[];
}

/** True when `a` and `b` are within 5% of each other or fall in the same or adjacent buckets of `le`. */
export function agreeWithin(a: number, b: number, le: readonly number[]): boolean {
  if (Math.abs(a - b) <= 0.05 * Math.max(a, b)) return true;
  const bucket = (x: number): number => le.findIndex((u) => x <= u);
  return Math.abs(bucket(a) - bucket(b)) <= 1;
}

/** Queries Prometheus at `endS` (unix s) over the lab's scraped range and compares with the lab's own p99s. */
export async function promSloReport(
  prom: RunningPrometheus,
  snaps: readonly ApiSnapshot[],
  endS: number,
): Promise<PromSloReport> {
  const first = snaps[0];
  const last = snaps[snaps.length - 1];
  const rangeS = first === undefined || last === undefined ? 0 : Math.max(1, Math.round(last.t - first.t));
  const query = apiLatencyQuery(0.99, rangeS);
  const result = rangeS > 0 ? await prom.query(query, endS) : [];
  const up = await prom.query('up', endS);
  const targets = up
    .map((r) => ({ job: r.metric.job ?? '', instance: r.metric.instance ?? '', up: r.value === 1 }))
    .sort((a, b) => a.job.localeCompare(b.job) || a.instance.localeCompare(b.instance));
  return { query, rangeS, ...compareSlis(snaps, result), targets };
}

/** The lab's p99 per SLI over `snaps` beside PromQL's `result` (the API latency query's vector), and the check. */
export function compareSlis(
  snaps: readonly ApiSnapshot[],
  result: readonly { metric: Record<string, string>; value: number }[],
): { rows: PromSloRow[]; agree: boolean } {
  const first = snaps[0];
  const last = snaps[snaps.length - 1];
  const byKey = new Map(
    result.map((r) => [
      `${r.metric.resource ?? ''}|${r.metric.subresource ?? ''}|${r.metric.verb ?? ''}|${r.metric.scope ?? ''}`,
      r.value,
    ]),
  );
  const rows: PromSloRow[] = [];
  for (const [key, b] of last?.sli ?? []) {
    const w = subtractBuckets(b, first?.sli.get(key));
    const count = bucketTotal(w);
    if (count === 0) continue;
    const [resource, subresource, verb, scope] = key.split('|') as [string, string, string, string];
    const lab = histogramQuantile(0.99, w);
    // The lab's first sample of the series after the range's start (its birth, if born inside the range).
    const firstInRange = snaps
      .slice(1)
      .find((s) => s.sli.has(key))
      ?.sli.get(key);
    const visible =
      count - (firstInRange === undefined ? 0 : bucketTotal(subtractBuckets(firstInRange, first?.sli.get(key))));
    const p = byKey.get(key);
    const promql = p === undefined || !Number.isFinite(p) ? null : p;
    rows.push({
      resource,
      subresource,
      verb,
      scope,
      count,
      lab,
      promql,
      visible,
      checked: visible >= MIN_CHECKED_CALLS,
      agree: promql !== null && agreeWithin(lab, promql, w.le),
    });
  }
  rows.sort((x, y) => y.count - x.count);
  const checked = rows.filter((r) => r.checked);
  return { rows, agree: checked.length > 0 && checked.every((r) => r.agree) };
}
