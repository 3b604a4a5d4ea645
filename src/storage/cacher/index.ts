/** The watch cache's public surface: Cacher, CacherRegistry, the object API's types, and metrics. */
export { Cacher, type ObjectList, type ObjectWatchExtras } from './cacher.js';
export { CacherRegistry, parseWatchCacheSizes, type CacherDefaults, type CacherRegistryOptions, type ResourceCacheConfig } from './cacher_registry.js';
export type { ObjectEvent, ObjectEventType, ObjectWatcher, ObjectWatchOptions } from './cacher_watch.js';
export { CachedObject, EncodedObject, jsonCodec, spliceResourceVersion, type ObjectCodec } from './cached_object.js';
export type { CacherMetrics } from './metrics.js';
export type { CacheReadOptions, CacherGetOptions, CacherListOptions, CacherOptions, ObjectListOptions } from './options.js';
export { DEFAULT_WINDOW_SIZING, type WindowSizing } from './event_window.js';
export type { Indexer } from './watch_cache.js';
