/**
 * The one decision of when a read goes past the watch cache to storage, in the spirit of
 * upstream's cacher delegator (shouldDelegateList, ShouldDelegateExactRV,
 * ShouldDelegateConsistentRead). The Cacher asks it for every get and list; flow control's
 * list-cost estimate can ask it too, to know whether a list will reach storage.
 */
import type { ReadVersion } from '../objects.js';

/** What the decision needs to know of a cache (upstream's delegator.Helper); undefined: no watch cache. */
export interface CacheReadState {
  /** Whether the initial list is in memory. */
  readonly isReady: boolean;
  /** The oldest revision the cache can serve an exact read at (its event window's start). */
  readonly oldestRevision: number;
  /** Whether consistent lists are served from the cache once it has caught up with storage. */
  readonly consistentReadsFromCache: boolean;
  /** Whether consistent gets are (only when storage tells its acknowledged revision without a round trip). */
  readonly consistentGetsFromCache: boolean;
}

/** Which read: one object, or a list. */
export type ReadKind = 'get' | 'list';

/**
 * Whether a read with this resourceVersion goes to storage instead of the cache, judged on the
 * cache as it is now (after the Cacher has waited for a revision ahead of it):
 * - no watch cache (--watch-cache=false or the resource's size 0), or the cache not initialized: storage;
 * - an exact revision (resourceVersionMatch=Exact, or a continue token's): storage when older than the window;
 * - resourceVersion "0" or NotOlderThan N: the cache;
 * - a consistent read (no resourceVersion): the cache only when it can be brought up to storage's
 *   current revision (reliable progress notifications) and, for a get, cheaply so, as upstream sends a
 *   consistent GET to etcd; the Cacher then serves such a get from memory only when the cache is already
 *   current, never after a wait (CacherBase.plan).
 */
export function shouldDelegate(kind: ReadKind, read: ReadVersion, cache: CacheReadState | undefined): boolean {
  if (cache === undefined || !cache.isReady) return true;
  if (read.revision !== undefined && read.revision > 0) return read.revision < cache.oldestRevision;
  if (read.minRevision !== undefined) return false;
  return kind === 'get' ? !cache.consistentGetsFromCache : !cache.consistentReadsFromCache;
}
