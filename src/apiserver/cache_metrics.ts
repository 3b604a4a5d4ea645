/**
 * Exports the watch cache's counters with upstream's metric names
 * (apiserver_watch_cache_*, apiserver_cache_list_*, apiserver_registered_watchers,
 * apiserver_terminated_watchers_total), read from the cache at scrape time.
 */
import { Gauge } from 'prom-client';
import type { CacherMetrics, CacherRegistry } from '../storage/cacher/index.js';
import type { ApiServerMetrics } from './metrics.js';

const EXPORTED: [name: string, help: string, field: keyof CacherMetrics][] = [
  ['apiserver_watch_cache_capacity', 'Total capacity of watch cache broken by resource type.', 'capacity'],
  [
    'apiserver_watch_cache_events_received_total',
    'Counter of events received in watch cache broken by resource type.',
    'eventsReceived',
  ],
  [
    'apiserver_watch_cache_resource_version',
    'Current resource version of watch cache broken by resource type.',
    'resourceVersion',
  ],
  [
    'apiserver_watch_cache_initializations_total',
    'Counter of watch cache initializations broken by resource type.',
    'initializations',
  ],
  [
    'apiserver_watch_cache_events_dispatched_total',
    'Counter of events dispatched in watch cache broken by resource type.',
    'eventsDispatched',
  ],
  ['apiserver_cache_list_total', 'Number of LIST requests served from watch cache', 'listTotal'],
  [
    'apiserver_cache_list_fetched_objects_total',
    'Number of objects read from watch cache in the course of serving a LIST request',
    'listFetchedObjects',
  ],
  [
    'apiserver_cache_list_returned_objects_total',
    'Number of objects returned for a LIST request from watch cache',
    'listReturnedObjects',
  ],
  ['apiserver_registered_watchers', 'Number of currently registered watchers for a given resources', 'watchers'],
  [
    'apiserver_terminated_watchers_total',
    'Counter of watchers closed due to unresponsiveness broken by resource type.',
    'terminatedWatchers',
  ],
  [
    'apiserver_watch_cache_memory_bytes',
    "kscale's own: bytes the watch cache holds, estimated, under --watch-cache-max-bytes (0 without it).",
    'bytes',
  ],
  [
    'apiserver_watch_cache_shed_events_total',
    "kscale's own: events dropped from the watch cache's history to stay under --watch-cache-max-bytes.",
    'shedEvents',
  ],
  [
    'apiserver_watch_cache_list_refused_total',
    "kscale's own: LISTs refused with 429 while the watch cache is over --watch-cache-max-bytes.",
    'refusedLists',
  ],
  ['kscale_watch_cache_objects', 'Objects held in the watch cache.', 'objects'],
  ['kscale_watch_cache_storage_reads_total', 'Reads the watch cache passed to storage.', 'storageReads'],
];

/** Registers one gauge per cache counter, filled from `cache.metrics()` on every scrape. */
export function registerCacheMetrics(metrics: ApiServerMetrics, cache: CacherRegistry): void {
  for (const [name, help, field] of EXPORTED) {
    new Gauge({
      name,
      help,
      labelNames: ['resource'],
      registers: [metrics.registry],
      collect() {
        for (const m of cache.metrics()) this.set({ resource: m.resource }, m[field] as number);
      },
    });
  }
}
