/**
 * API Priority and Fairness as the lab sees it: per priority level, from the
 * server's apiserver_flowcontrol_* series (upstream's names and labels),
 * what was dispatched, rejected (by reason), how long requests waited in
 * their queues, and the peaks of waiting requests and executing seats over
 * the scrapes. Empty when the server runs without APF
 * (--enable-priority-and-fairness=false).
 */
import {
  bucketTotal,
  histogramQuantile,
  histograms,
  subtractBuckets,
  sumOf,
  type Buckets,
  type PromSample,
} from './prom.js';

/** One priority level in one scrape (counters cumulative since the server started). */
export interface LevelSample {
  dispatched: number;
  /** Rejected requests by upstream's reason: queue-full, time-out, concurrency-limit, cancelled. */
  rejected: Record<string, number>;
  inqueue: number;
  executingSeats: number;
  nominalSeats: number;
  /** The wait of requests that went on to execute (execute="true"), in seconds. */
  wait: Buckets | undefined;
}

/** One scrape's flow-control series, by priority level and by FlowSchema (dispatched only). */
export interface FlowControlSample {
  levels: Map<string, LevelSample>;
  dispatchedBySchema: Map<string, number>;
  rejectedBySchema: Map<string, number>;
}

const DISPATCHED = 'apiserver_flowcontrol_dispatched_requests_total';
const REJECTED = 'apiserver_flowcontrol_rejected_requests_total';

/** Reduces one scrape's samples to the flow-control series. */
export function flowControlOf(samples: PromSample[]): FlowControlSample {
  const levels = new Map<string, LevelSample>();
  const level = (name: string): LevelSample => {
    let l = levels.get(name);
    if (l === undefined)
      levels.set(
        name,
        (l = { dispatched: 0, rejected: {}, inqueue: 0, executingSeats: 0, nominalSeats: 0, wait: undefined }),
      );
    return l;
  };
  const dispatchedBySchema = new Map<string, number>();
  const rejectedBySchema = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number): void => void m.set(k, (m.get(k) ?? 0) + v);
  for (const s of samples) {
    const pl = s.labels.priority_level;
    if (pl === undefined || !s.name.startsWith('apiserver_flowcontrol_')) continue;
    switch (s.name) {
      case DISPATCHED:
        level(pl).dispatched += s.value;
        add(dispatchedBySchema, s.labels.flow_schema ?? '', s.value);
        break;
      case REJECTED: {
        const r = level(pl).rejected;
        const reason = s.labels.reason ?? '';
        r[reason] = (r[reason] ?? 0) + s.value;
        add(rejectedBySchema, s.labels.flow_schema ?? '', s.value);
        break;
      }
      case 'apiserver_flowcontrol_current_inqueue_requests':
        level(pl).inqueue += s.value;
        break;
      case 'apiserver_flowcontrol_current_executing_seats':
        level(pl).executingSeats += s.value;
        break;
      case 'apiserver_flowcontrol_nominal_limit_seats':
        level(pl).nominalSeats = s.value;
        break;
    }
  }
  const waits = histograms(samples, 'apiserver_flowcontrol_request_wait_duration_seconds', (l) =>
    l.execute === 'true' ? l.priority_level : undefined,
  );
  for (const [pl, b] of waits) level(pl).wait = b;
  return { levels, dispatchedBySchema, rejectedBySchema };
}

/** One priority level over a run (report.json's flowControl.priorityLevels). */
export interface PriorityLevelEntry {
  priorityLevel: string;
  nominalSeats: number;
  dispatched: number;
  rejected: number;
  rejectedByReason: Record<string, number>;
  /** Dispatched requests that waited in a queue first (wait above the histogram's 0 bucket). */
  queued: number;
  /** Queue wait of dispatched requests, seconds (null when none were dispatched). */
  waitP50S: number | null;
  waitP99S: number | null;
  /** The most requests waiting, and the most seats executing, at any scrape. */
  inqueuePeak: number;
  executingSeatsPeak: number;
}

/** Per priority level over the scrapes (the first one is the baseline); levels that saw no request are left out. */
export function priorityLevels(snaps: { flowControl: FlowControlSample }[]): PriorityLevelEntry[] {
  const first = snaps[0]?.flowControl;
  const last = snaps[snaps.length - 1]?.flowControl;
  if (first === undefined || last === undefined) return [];
  const out: PriorityLevelEntry[] = [];
  for (const [name, l] of last.levels) {
    const b = first === last ? undefined : first.levels.get(name);
    const rejectedByReason: Record<string, number> = {};
    for (const [reason, n] of Object.entries(l.rejected)) {
      const d = n - (b?.rejected[reason] ?? 0);
      if (d > 0) rejectedByReason[reason] = d;
    }
    const wait = l.wait === undefined ? undefined : subtractBuckets(l.wait, b?.wait);
    let inqueuePeak = 0;
    let executingSeatsPeak = 0;
    for (const s of snaps) {
      const x = s.flowControl.levels.get(name);
      inqueuePeak = Math.max(inqueuePeak, x?.inqueue ?? 0);
      executingSeatsPeak = Math.max(executingSeatsPeak, x?.executingSeats ?? 0);
    }
    const dispatched = l.dispatched - (b?.dispatched ?? 0);
    const rejected = Object.values(rejectedByReason).reduce((x, y) => x + y, 0);
    if (dispatched === 0 && rejected === 0 && inqueuePeak === 0 && executingSeatsPeak === 0) continue;
    const waited = wait === undefined ? 0 : bucketTotal(wait) - (wait.le[0] === 0 ? wait.counts[0]! : 0);
    const q = (p: number): number | null => {
      if (wait === undefined || bucketTotal(wait) === 0) return null;
      const v = histogramQuantile(p, wait);
      return Number.isNaN(v) ? null : v;
    };
    out.push({
      priorityLevel: name,
      nominalSeats: l.nominalSeats,
      dispatched,
      rejected,
      rejectedByReason,
      queued: waited,
      waitP50S: q(0.5),
      waitP99S: q(0.99),
      inqueuePeak,
      executingSeatsPeak,
    });
  }
  return out.sort((a, b) => b.dispatched + b.rejected - (a.dispatched + a.rejected));
}

/** A FlowSchema's share of everything APF dispatched over the run (0..1), or null without APF figures. */
export function schemaShare(snaps: { flowControl: FlowControlSample }[], schema: string): number | null {
  const first = snaps[0]?.flowControl;
  const last = snaps[snaps.length - 1]?.flowControl;
  if (first === undefined || last === undefined) return null;
  const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
  const base = first === last ? 0 : total(first.dispatchedBySchema);
  const all = total(last.dispatchedBySchema) - base;
  if (all <= 0) return null;
  const mine =
    (last.dispatchedBySchema.get(schema) ?? 0) - (first === last ? 0 : (first.dispatchedBySchema.get(schema) ?? 0));
  return mine / all;
}

/** Requests of one resource answered with `code` (apiserver_request_total), e.g. the Lease writes refused with 429. */
export function requestsWithCode(samples: PromSample[], resource: string, code: string): number {
  return sumOf(samples, 'apiserver_request_total', (l) => l.resource === resource && l.code === code);
}
