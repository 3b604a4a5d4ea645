/**
 * The event correlator of client-go's tools/record: it aggregates similar
 * events, deduplicates identical ones into a count, and rate-limits each
 * object's events with a token bucket, so a hot loop that emits the same
 * Event thousands of times produces one Event object with a count.
 */
import type { Clock } from '../../clock/index.js';
import type { CoreEvent } from './event.js';

/** Tunables, with client-go's defaults. */
export interface CorrelatorOptions {
  /** Distinct messages of one (object, reason) within maxIntervalMs before they are combined (10). */
  maxEvents?: number;
  /** Window of the aggregation (10 minutes). */
  maxIntervalMs?: number;
  /** Spam filter burst per object (25). */
  spamBurst?: number;
  /** Spam filter refill, events per second per object (1/300). */
  spamQps?: number;
  /** Entries kept in each LRU cache (4096). */
  cacheSize?: number;
}

/** What to do with an event: create it, patch the existing one, or drop it. */
export type CorrelationResult =
  | { action: 'create'; event: CoreEvent }
  | { action: 'patch'; event: CoreEvent; patch: Record<string, unknown> }
  | { action: 'skip' };

/** A Map bounded by insertion order, refreshed on access: a small LRU. */
class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

function objectKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host ?? '',
    o.kind,
    o.namespace ?? '',
    o.name,
    o.uid ?? '',
    o.apiVersion ?? '',
  ].join('\u0000');
}

/** Everything but the message: events that differ only in message are "similar". */
function aggregateKey(e: CoreEvent): string {
  return [objectKey(e), e.type, e.reason, e.reportingComponent ?? '', e.reportingInstance ?? ''].join('\u0000');
}

interface AggregateRecord {
  messages: Set<string>;
  last: number;
}
interface SeenRecord {
  count: number;
  firstTimestamp: string;
  name: string;
}
interface Bucket {
  tokens: number;
  last: number;
}

/** Decides, per emitted event, whether it becomes a new Event, a count patch, or nothing. */
export class EventCorrelator {
  private readonly maxEvents: number;
  private readonly maxIntervalMs: number;
  private readonly spamBurst: number;
  private readonly spamQps: number;
  private readonly aggregates: LruCache<AggregateRecord>;
  private readonly seen: LruCache<SeenRecord>;
  private readonly buckets: LruCache<Bucket>;

  constructor(
    private readonly clock: Clock,
    opts: CorrelatorOptions = {},
  ) {
    this.maxEvents = opts.maxEvents ?? 10;
    this.maxIntervalMs = opts.maxIntervalMs ?? 600_000;
    this.spamBurst = opts.spamBurst ?? 25;
    this.spamQps = opts.spamQps ?? 1 / 300;
    const size = opts.cacheSize ?? 4096;
    this.aggregates = new LruCache(size);
    this.seen = new LruCache(size);
    this.buckets = new LruCache(size);
  }

  /** Correlates one event; `event` is not modified. */
  correlate(event: CoreEvent): CorrelationResult {
    const now = this.clock.now();
    const { event: aggregated, key } = this.aggregate(event, now);
    if (!this.allow(objectKey(event), now)) return { action: 'skip' };
    const prior = this.seen.get(key);
    if (prior === undefined) {
      const created = { ...aggregated, count: 1 };
      this.seen.set(key, { count: 1, firstTimestamp: created.firstTimestamp, name: created.metadata.name });
      return { action: 'create', event: created };
    }
    prior.count += 1;
    const patched: CoreEvent = {
      ...aggregated,
      metadata: { ...aggregated.metadata, name: prior.name },
      count: prior.count,
      firstTimestamp: prior.firstTimestamp,
    };
    return {
      action: 'patch',
      event: patched,
      patch: { count: prior.count, lastTimestamp: patched.lastTimestamp, message: patched.message },
    };
  }

  /** Forgets a deduplicated event whose Event object is gone (a patch got NotFound). */
  forget(event: CoreEvent): void {
    const key = this.keyOf(event);
    const prior = this.seen.get(key);
    if (prior !== undefined) prior.count = 0;
    this.seen.set(key, { count: 1, firstTimestamp: event.firstTimestamp, name: event.metadata.name });
  }

  private keyOf(event: CoreEvent): string {
    return event.message.startsWith(COMBINED_PREFIX)
      ? aggregateKey(event)
      : `${aggregateKey(event)}\u0000${event.message}`;
  }

  private aggregate(event: CoreEvent, now: number): { event: CoreEvent; key: string } {
    const aKey = aggregateKey(event);
    let rec = this.aggregates.get(aKey);
    if (rec === undefined || now - rec.last > this.maxIntervalMs) rec = { messages: new Set(), last: now };
    rec.messages.add(event.message);
    rec.last = now;
    this.aggregates.set(aKey, rec);
    if (rec.messages.size < this.maxEvents) return { event, key: `${aKey}\u0000${event.message}` };
    // Like client-go: past maxEvents distinct messages, one combined Event carries them all.
    return { event: { ...event, message: `${COMBINED_PREFIX}${event.message}` }, key: aKey };
  }

  private allow(key: string, now: number): boolean {
    let b = this.buckets.get(key);
    if (b === undefined) b = { tokens: this.spamBurst, last: now };
    b.tokens = Math.min(this.spamBurst, b.tokens + ((now - b.last) / 1000) * this.spamQps);
    b.last = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}

/** The message prefix client-go gives combined events. */
export const COMBINED_PREFIX = '(combined from similar events): ';
