/**
 * The watch cache's public surface: Cacher, CacherRegistry, the object API's types, and metrics.
 *
 * The API server builds one CacherRegistry over its storage (unless --watch-cache=false),
 * with a ResourceCacheConfig per resource (indexers: spec.nodeName for pods, metadata.name
 * for all) and --watch-cache-sizes, and uses it as its Storage. For HTTP reads it asks
 * `registry.cacherFor(prefix)`; when a Cacher serves the resource it calls listObjects /
 * getObject / watchObjects and writes `object.bytes()` straight into responses and frames;
 * otherwise it keeps its storage path. `registry.metrics()` feeds its prom-client gauges.
 */
export { Cacher, type ObjectList, type ObjectWatchExtras } from './cacher.js';
export { CacherRegistry, parseWatchCacheSizes, type CacherDefaults, type CacherRegistryOptions, type ResourceCacheConfig } from './cacher_registry.js';
export type { ObjectEvent, ObjectEventType, ObjectWatcher, ObjectWatchOptions } from './cacher_watch.js';
export { CachedObject, EncodedObject, jsonCodec, resourceVersionParts, spliceResourceVersion, type ObjectCodec } from './cached_object.js';
export type { CacherMetrics } from './metrics.js';
export type { CacheReadOptions, CacherGetOptions, CacherListOptions, CacherOptions, ObjectListOptions } from './options.js';
export { DEFAULT_WINDOW_SIZING, type WindowSizing } from './event_window.js';
export type { Indexer } from './watch_cache.js';
