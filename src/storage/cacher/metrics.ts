/**
 * Counters of one Cacher as plain numbers, named after upstream's metrics so
 * the API server can export them with prom-client under the same names; the
 * cacher itself depends on no metrics library.
 */

/** A point-in-time view of one cacher's metrics, labelled by resource. */
export interface CacherMetrics {
  /** The resource label (e.g. 'pods'). */
  resource: string;
  /** apiserver_watch_cache_capacity: the event window's current capacity. */
  capacity: number;
  /** Events held in the window now. */
  windowEvents: number;
  /** Objects held in the cache now. */
  objects: number;
  /** kscale's apiserver_watch_cache_memory_bytes: bytes held, estimated (0 without --watch-cache-max-bytes). */
  bytes: number;
  /** kscale's apiserver_watch_cache_shed_events_total: events given up to --watch-cache-max-bytes. */
  shedEvents: number;
  /** kscale's apiserver_watch_cache_list_refused_total: LISTs refused with 429 over --watch-cache-max-bytes. */
  refusedLists: number;
  /** apiserver_watch_cache_events_received_total. */
  eventsReceived: number;
  /** apiserver_watch_cache_resource_version: the revision the cache has reached. */
  resourceVersion: number;
  /** apiserver_watch_cache_initializations_total: lists that (re)initialized the cache. */
  initializations: number;
  /** apiserver_cache_list_total: lists served from the cache. */
  listTotal: number;
  /** apiserver_cache_list_fetched_objects_total: objects walked by those lists. */
  listFetchedObjects: number;
  /** apiserver_cache_list_returned_objects_total: objects returned by those lists. */
  listReturnedObjects: number;
  /** Gets served from the cache. */
  getTotal: number;
  /** Reads the cacher passed to storage (cache not ready, revision outside the window, consistent reads without reliable progress). */
  storageReads: number;
  /** apiserver_registered_watchers (watchers by resource). */
  watchers: number;
  /** apiserver_watch_cache_events_dispatched_total: events handed to cache watchers. */
  eventsDispatched: number;
  /** apiserver_terminated_watchers_total: watchers closed for not keeping up. */
  terminatedWatchers: number;
  /** Progress notifications requested from storage for consistent reads. */
  progressRequests: number;
}

/** The cumulative counters a Cacher mutates. */
export class CacherCounters {
  eventsReceived = 0;
  initializations = 0;
  listTotal = 0;
  listFetchedObjects = 0;
  listReturnedObjects = 0;
  getTotal = 0;
  storageReads = 0;
  eventsDispatched = 0;
  terminatedWatchers = 0;
  refusedLists = 0;
}
