/**
 * Scrapes the API server's /metrics during a run and keeps what the SLIs
 * need: the apiserver_request_sli_duration_seconds buckets per (resource,
 * subresource, verb, scope), request and 429 counts, storage operations
 * (etcd_request_duration_seconds), watch events dispatched, and the
 * server's runtime: event loop lag since the last scrape (prom-client resets
 * its histogram on every collect) and time spent in GC.
 */
import type { RESTClient } from '../client/index.js';
import {
  histograms,
  histogramQuantile,
  parsePrometheus,
  subtractBuckets,
  sumOf,
  bucketTotal,
  type Buckets,
} from './prom.js';
import { flowControlOf, requestsWithCode, type FlowControlSample } from './flowcontrol_report.js';
import { percentiles } from './stats.js';

/** One scrape, reduced. */
export interface ApiSnapshot {
  /** Seconds since the run started. */
  t: number;
  /** Per SLI key "resource|subresource|verb|scope". */
  sli: Map<string, Buckets>;
  requests: number;
  tooManyRequests: number;
  storageOps: Map<string, number>;
  watchEventsDispatched: number;
  watchers: number;
  /** Event loop lag p99 and max since the previous scrape (s); null when the server does not export them. */
  eventLoopLagP99: number | null;
  eventLoopLagMax: number | null;
  /** Seconds spent in GC since the server started (all kinds). */
  gcSeconds: number;
  /** API Priority and Fairness per priority level and FlowSchema (empty without APF). */
  flowControl: FlowControlSample;
  /** Lease requests answered 429 (node heartbeats refused). */
  leaseTooManyRequests: number;
}

/** The SLI key of a request series; WATCH and CONNECT are not SLI calls. */
function sliKey(l: Record<string, string>): string | undefined {
  if (l.verb === 'WATCH' || l.verb === 'CONNECT') return undefined;
  return `${l.resource ?? ''}|${l.subresource ?? ''}|${l.verb ?? ''}|${l.scope ?? ''}`;
}

/** Reduces one /metrics text to a snapshot. */
export function snapshotOf(text: string, t: number): ApiSnapshot {
  const samples = parsePrometheus(text);
  const storageOps = new Map<string, number>();
  for (const s of samples)
    if (s.name === 'etcd_request_duration_seconds_count')
      storageOps.set(s.labels.operation ?? '', (storageOps.get(s.labels.operation ?? '') ?? 0) + s.value);
  return {
    t,
    sli: histograms(samples, 'apiserver_request_sli_duration_seconds', sliKey),
    requests: sumOf(samples, 'apiserver_request_total'),
    tooManyRequests: sumOf(samples, 'apiserver_request_total', (l) => l.code === '429'),
    storageOps,
    watchEventsDispatched: sumOf(samples, 'apiserver_watch_cache_events_dispatched_total'),
    watchers: sumOf(samples, 'apiserver_registered_watchers'),
    eventLoopLagP99: valueOf(samples, 'nodejs_eventloop_lag_p99_seconds'),
    eventLoopLagMax: valueOf(samples, 'nodejs_eventloop_lag_max_seconds'),
    gcSeconds: sumOf(samples, 'nodejs_gc_duration_seconds_sum'),
    flowControl: flowControlOf(samples),
    leaseTooManyRequests: requestsWithCode(samples, 'leases', '429'),
  };
}

/** The value of an unlabelled series, or null when it is absent. */
function valueOf(samples: ReturnType<typeof parsePrometheus>, name: string): number | null {
  const s = samples.find((x) => x.name === name);
  return s === undefined || !Number.isFinite(s.value) ? null : s.value;
}

/** Fetches /metrics of `server` (a plain-HTTP base URL, or a client with its kubeconfig's TLS); rejects on a non-200. */
export async function scrape(server: string | RESTClient, signal?: AbortSignal): Promise<string> {
  if (typeof server !== 'string') {
    const res = await server.requestRaw({
      method: 'GET',
      path: '/metrics',
      ...(signal === undefined ? {} : { signal }),
    });
    return res.body.toString();
  }
  const res = await fetch(`${server}/metrics`, signal === undefined ? {} : { signal });
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  return res.text();
}

/** The SLI class of a key, per sig-scalability's API call latency SLIs. */
export type SliClass = 'mutating' | 'read-resource' | 'read-namespace' | 'read-cluster';

/** Which SLI a (verb, scope) counts toward; undefined for calls no SLI covers. */
export function sliClass(verb: string, scope: string): SliClass | undefined {
  if (verb === 'POST' || verb === 'PUT' || verb === 'PATCH' || verb === 'DELETE') return 'mutating';
  if (verb === 'GET') return 'read-resource';
  if (verb === 'LIST')
    return scope === 'namespace' ? 'read-namespace' : scope === 'cluster' ? 'read-cluster' : undefined;
  return undefined;
}

/** Latency of one (resource, subresource, verb, scope): percentiles of the worst 5-minute window, in seconds. */
export interface ApiLatencyEntry {
  resource: string;
  subresource: string;
  verb: string;
  scope: string;
  sli: SliClass | null;
  count: number;
  p50: number;
  p90: number;
  p99: number;
  /** The end of the window the figures come from, s since start. */
  windowEnd: number;
}

/**
 * The worst window's percentiles per key: windows of `windowS` seconds
 * ending at each snapshot (the whole run when it is shorter), as
 * upstream's SLIs are "p99 over 5 minutes".
 */
export function apiLatencies(snaps: ApiSnapshot[], windowS = 300, minCount = 1): ApiLatencyEntry[] {
  if (snaps.length === 0) return [];
  const last = snaps[snaps.length - 1]!;
  const out: ApiLatencyEntry[] = [];
  for (const key of last.sli.keys()) {
    const [resource, subresource, verb, scope] = key.split('|') as [string, string, string, string];
    let worst: ApiLatencyEntry | undefined;
    let j = 0;
    for (let i = 0; i < snaps.length; i++) {
      const end = snaps[i]!;
      // Only full windows, unless the run is shorter than one window (then just the whole run).
      if (end.t - snaps[0]!.t < windowS && i !== snaps.length - 1) continue;
      // The window starts at the first snapshot no more than windowS before its end.
      while (j < i && end.t - snaps[j]!.t > windowS) j++;
      const cur = end.sli.get(key);
      if (cur === undefined) continue;
      const w = subtractBuckets(cur, end.t - snaps[0]!.t < windowS ? undefined : snaps[j]!.sli.get(key));
      const count = bucketTotal(w);
      if (count < minCount) continue;
      const p99 = histogramQuantile(0.99, w);
      if (worst === undefined || p99 > worst.p99) {
        worst = {
          resource,
          subresource,
          verb,
          scope,
          sli: sliClass(verb, scope) ?? null,
          count,
          p50: histogramQuantile(0.5, w),
          p90: histogramQuantile(0.9, w),
          p99,
          windowEnd: end.t,
        };
      }
    }
    if (worst !== undefined) out.push({ ...worst, count: bucketTotal(last.sli.get(key)!) });
  }
  return out.sort((a, b) => b.p99 - a.p99);
}

/**
 * The SLI entries from the lab's own timings ("resource VERB" → ms), for a cluster whose /metrics the lab may not
 * read: the whole run is one window ending at `endS`, and each figure includes the network and the client.
 * Every call the lab makes is namespaced except on namespaces, and its LISTs are per namespace.
 */
export function clientApiLatencies(client: Map<string, number[]>, endS: number): ApiLatencyEntry[] {
  const out: ApiLatencyEntry[] = [];
  for (const [key, ms] of client) {
    const [resource = '', verb = ''] = key.split(' ');
    if (ms.length === 0) continue;
    const scope = resource === 'namespaces' ? 'cluster' : 'namespace';
    const p = percentiles(ms);
    out.push({
      resource,
      subresource: '',
      verb,
      scope,
      sli: sliClass(verb, scope) ?? null,
      count: p.count,
      p50: p.p50 / 1000,
      p90: p.p90 / 1000,
      p99: p.p99 / 1000,
      windowEnd: endS,
    });
  }
  return out.sort((a, b) => b.p99 - a.p99);
}

/** Per-interval series for the charts: QPS, 429/s, storage ops/s, watch events/s and the p99 of each SLI class. */
export interface ApiSeries {
  t: number[];
  qps: number[];
  tooManyPerSec: number[];
  storageOpsPerSec: number[];
  watchEventsPerSec: number[];
  p99: Record<SliClass, (number | null)[]>;
  /** The server's event loop lag over each interval, ms (null where it was not exported). */
  eventLoopLagP99Ms: (number | null)[];
  eventLoopLagMaxMs: (number | null)[];
  /** Share of each interval the server spent in GC (0..1). */
  gcShare: number[];
}

/** Rates and p99s between consecutive snapshots. */
export function apiSeries(snaps: ApiSnapshot[]): ApiSeries {
  const s: ApiSeries = {
    t: [],
    qps: [],
    tooManyPerSec: [],
    storageOpsPerSec: [],
    watchEventsPerSec: [],
    p99: { mutating: [], 'read-resource': [], 'read-namespace': [], 'read-cluster': [] },
    eventLoopLagP99Ms: [],
    eventLoopLagMaxMs: [],
    gcShare: [],
  };
  const ms = (v: number | null): number | null => (v === null ? null : v * 1000);
  for (let i = 1; i < snaps.length; i++) {
    const a = snaps[i - 1]!;
    const b = snaps[i]!;
    const dt = b.t - a.t;
    if (dt <= 0) continue;
    s.t.push(b.t);
    s.qps.push((b.requests - a.requests) / dt);
    s.tooManyPerSec.push((b.tooManyRequests - a.tooManyRequests) / dt);
    const ops = (m: Map<string, number>): number => [...m.values()].reduce((x, y) => x + y, 0);
    s.storageOpsPerSec.push((ops(b.storageOps) - ops(a.storageOps)) / dt);
    s.watchEventsPerSec.push((b.watchEventsDispatched - a.watchEventsDispatched) / dt);
    s.eventLoopLagP99Ms.push(ms(b.eventLoopLagP99));
    s.eventLoopLagMaxMs.push(ms(b.eventLoopLagMax));
    s.gcShare.push(Math.max(0, (b.gcSeconds - a.gcSeconds) / dt));
    const merged = new Map<SliClass, Buckets>();
    for (const [key, cur] of b.sli) {
      const [, , verb, scope] = key.split('|') as [string, string, string, string];
      const cls = sliClass(verb, scope);
      if (cls === undefined) continue;
      const w = subtractBuckets(cur, a.sli.get(key));
      const m = merged.get(cls);
      merged.set(cls, m === undefined ? w : { le: m.le, counts: m.counts.map((c, k) => c + (w.counts[k] ?? 0)) });
    }
    for (const cls of Object.keys(s.p99) as SliClass[]) {
      const m = merged.get(cls);
      const q = m === undefined || bucketTotal(m) === 0 ? null : histogramQuantile(0.99, m);
      s.p99[cls].push(q);
    }
  }
  return s;
}

/** Latency CDF points (seconds, fraction) of one SLI class over the whole run, from the bucket bounds. */
export function latencyCdf(snaps: ApiSnapshot[], cls: SliClass): { le: number[]; fraction: number[] } {
  const last = snaps[snaps.length - 1];
  if (last === undefined) return { le: [], fraction: [] };
  let merged: Buckets | undefined;
  for (const [key, b] of last.sli) {
    const [, , verb, scope] = key.split('|') as [string, string, string, string];
    if (sliClass(verb, scope) !== cls) continue;
    merged = merged === undefined ? b : { le: merged.le, counts: merged.counts.map((c, k) => c + (b.counts[k] ?? 0)) };
  }
  if (merged === undefined || bucketTotal(merged) === 0) return { le: [], fraction: [] };
  const total = bucketTotal(merged);
  const finite = merged.le
    .map((le, i) => [le, merged.counts[i]! / total] as const)
    .filter(([le]) => Number.isFinite(le));
  return { le: finite.map(([le]) => le), fraction: finite.map(([, f]) => f) };
}
