/**
 * Options of one Cacher, with upstream's defaults, and the read options the
 * Cacher accepts beyond the Storage contract.
 */
import type { Clock } from '../../clock/index.js';
import type { GetOptions, ListOptions, Storage } from '../interface.js';
import type { ObjectCodec } from './cached_object.js';
import type { WindowSizing } from './event_window.js';
import type { WatchCacheMemoryBudget } from './memory_budget.js';
import type { ReflectorLogger } from './reflector.js';
import type { Indexer } from './watch_cache.js';

/** A backend with Storage.requestProgress (reliable progress notifications on request). */
export type ProgressRequestingStorage = Storage & Required<Pick<Storage, 'requestProgress'>>;

/** Whether `s` offers reliable progress notifications on request. */
export function hasRequestProgress(s: Storage): s is ProgressRequestingStorage {
  return typeof s.requestProgress === 'function';
}

/** A backend with Storage.acknowledgedRevision (a consistent-read target without a round trip). */
export type AcknowledgedRevisionStorage = Storage & Required<Pick<Storage, 'acknowledgedRevision'>>;

/** Whether `s` can tell its acknowledged revision without a storage read. */
export function hasAcknowledgedRevision(s: Storage): s is AcknowledgedRevisionStorage {
  return typeof s.acknowledgedRevision === 'function';
}

/** How to build a Cacher for one resource. */
export interface CacherOptions {
  /** The storage it decorates; writes pass through to it. */
  storage: Storage;
  /**
   * Where the reads shouldDelegate hands on go (default: `storage`): the same store, maybe wrapped,
   * as the API server times each call, since a delegated read is a storage request like any other.
   */
  readStorage?: Storage;
  /** The resource's key prefix, ending in '/', e.g. '/registry/pods/'. */
  resourcePrefix: string;
  /** The resource label of metrics (default: the prefix's last segment). */
  resource?: string;
  clock?: Clock;
  /** Fields to index objects and watchers by, e.g. spec.nodeName for pods. */
  indexers?: Indexer[];
  /** Decoding and response encoding (default: JSON with resourceVersion spliced in). */
  codec?: ObjectCodec;
  /**
   * Serve consistent reads (resourceVersion unset) from the cache after
   * waiting for it to reach storage's current revision. Needs reliable
   * progress notifications; default: whether the storage has requestProgress().
   * False sends consistent reads to storage, as upstream does for etcd < 3.4.31.
   */
  consistentReadsFromCache?: boolean;
  /** How long a read waits for the cache to reach a revision (upstream: 3 s). */
  freshnessTimeoutMs?: number;
  /** How long reads wait for the initial list before going to storage (default 10 s). */
  readyTimeoutMs?: number;
  /** Event window sizing (default: 75 s, 100 .. 102,400 events). */
  windowSizing?: Partial<WindowSizing>;
  /** Live events a watcher may buffer (default 1000, or 100 for an index-filtered watcher, like upstream's channel sizes). */
  watcherCapacity?: number;
  /** How long a watcher's buffer may stay full before it is closed with TooSlow (default 5 s). */
  slowWatcherBudgetMs?: number;
  /** Bookmark cadence (upstream: 1 min). */
  bookmarkFrequencyMs?: number;
  /** Minimum time between forwarded progress events per Storage-contract watcher (default 1 s). */
  progressForwardIntervalMs?: number;
  log?: ReflectorLogger;
  /** --watch-cache-max-bytes: the watermark shared by every cache of the server (default: none, nothing counted). */
  memoryBudget?: WatchCacheMemoryBudget;
}

/**
 * Read options beyond the Storage contract. `minRevision` is resourceVersion
 * "N" with NotOlderThan semantics (and "0" = any): serve the cache's current
 * state once it has reached N. Omitted with no `revision`: a consistent read.
 */
export interface CacheReadOptions {
  minRevision?: number;
}

/** GetOptions plus minRevision. */
export type CacherGetOptions = GetOptions & CacheReadOptions;
/** ListOptions plus minRevision. */
export type CacherListOptions = ListOptions & CacheReadOptions;
