/**
 * The work estimator, like upstream's util/flowcontrol/request: a LIST costs
 * one seat per 100 objects it will touch (every stored object when the watch
 * cache answers, twice the limit from storage, stored plus limit with a
 * selector; one object when a `metadata.name=` field selector pins it to a
 * single object, as upstream's matchesSingle), capped at the level's maximum;
 * a write with 10 or more watchers pays one seat per 10 of them, held 5 ms per
 * notification after it returns; a WATCH costs one seat (a list's worth with
 * sendInitialEvents=true); the rest cost one seat.
 */
import { selectedName, type RequestInfo } from '../request_info.js';
import type { WorkEstimate } from './queueset.js';

/** What the estimator reads of a resource: its stored object count and watchers, and whether a list goes to storage. */
export interface ResourceStats {
  /** Objects stored, or undefined when not tracked (then a list costs the minimum, as upstream's not-found). */
  objectCount(info: RequestInfo): number | undefined;
  /** Watchers of the resource that a write will notify. */
  watchCount(info: RequestInfo): number;
  /** Whether this list is answered by storage rather than the watch cache (the cacher's own rule). */
  listFromStorage(info: RequestInfo): boolean;
}

/** Upstream's estimator constants. */
export const OBJECTS_PER_SEAT = 100;
/** Watchers whose notifications one seat covers. */
export const WATCHES_PER_SEAT = 10;
/** Extra time a write's seats stay taken per watch event. */
export const EVENT_ADDITIONAL_MS = 5;
/** The most seats any request takes. */
export const MAXIMUM_SEATS = 10;

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const ONE: WorkEstimate = Object.freeze({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });

/** The seats cap of a level, like upstream: min(10, ceil(0.15 × nominal limit), ceil(nominal / handSize)), at least 1. */
export function maxSeatsOf(nominalLimit: number, handSize: number): number {
  let max = Math.min(MAXIMUM_SEATS, Math.ceil(0.15 * nominalLimit));
  if (handSize > 0) max = Math.min(max, Math.ceil(nominalLimit / handSize));
  return Math.max(1, max);
}

function listSeats(info: RequestInfo, stats: ResourceStats, maxSeats: number): number {
  // A kubelet's list of its one Secret or ConfigMap reads one object, however many are stored.
  if (selectedName(info) !== '') return 1;
  const stored = stats.objectCount(info);
  if (stored === undefined) return 1;
  const limitParam = Number(info.query.get('limit') ?? '0');
  const limit = limitParam > 0 && limitParam < stored ? limitParam : stored;
  let objects: number;
  if (!stats.listFromStorage(info)) objects = stored;
  else if (info.query.has('labelSelector') || info.query.has('fieldSelector')) objects = stored + limit;
  else objects = 2 * limit;
  return Math.min(maxSeats, Math.max(1, Math.ceil(objects / OBJECTS_PER_SEAT)));
}

/** Estimates one request's seats and extra latency under a level whose cap is `maxSeats`. */
export function estimateWork(info: RequestInfo, stats: ResourceStats, maxSeats: number): WorkEstimate {
  if (!info.isResourceRequest) return ONE;
  if (info.verb === 'list')
    return { initialSeats: listSeats(info, stats, maxSeats), finalSeats: 0, additionalLatencyMs: 0 };
  if (info.verb === 'watch') {
    if (info.query.get('sendInitialEvents') !== 'true') return ONE;
    return { initialSeats: listSeats(info, stats, maxSeats), finalSeats: 0, additionalLatencyMs: 0 };
  }
  if (!MUTATING.has(info.verb)) return ONE;
  const watchers = stats.watchCount(info);
  // Like upstream, fewer watchers than one seat covers cost the write nothing after it returns.
  if (watchers < WATCHES_PER_SEAT) return ONE;
  const seats = Math.ceil(watchers / WATCHES_PER_SEAT);
  // Past the cap, the same work is done by fewer seats for longer.
  const finalSeats = Math.min(seats, maxSeats);
  return { initialSeats: 1, finalSeats, additionalLatencyMs: (seats * EVENT_ADDITIONAL_MS) / finalSeats };
}
