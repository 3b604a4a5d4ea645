/**
 * The watch cache's public surface: Cacher, CacherRegistry, the object API's types, and metrics.
 *
 * The API server builds one CacherRegistry over its storage (unless --watch-cache=false),
 * with a ResourceCacheConfig per resource (indexers: spec.nodeName and status.phase for pods,
 * metadata.name for all) and --watch-cache-sizes, and uses it as its Storage. Its registry reads each
 * resource through the object-level contract (storage/objects.ts): the resource's Cacher
 * (`registry.cacherFor(prefix)`), or a DirectObjectStorage when the resource is not cached.
 * `registry.metrics()` feeds its prom-client gauges.
 */
export { Cacher } from './cacher.js';
export {
  CacherRegistry,
  parseWatchCacheSizes,
  type CacherDefaults,
  type CacherRegistryOptions,
  type ResourceCacheConfig,
} from './cacher_registry.js';
export { shouldDelegate, type CacheReadState, type ReadKind } from './delegator.js';
export {
  CachedObject,
  EncodedObject,
  jsonCodec,
  resourceVersionParts,
  spliceResourceVersion,
  type ObjectCodec,
} from './cached_object.js';
export type { CacherMetrics } from './metrics.js';
export { WatchCacheMemoryBudget } from './memory_budget.js';
export type { CacheReadOptions, CacherGetOptions, CacherListOptions, CacherOptions } from './options.js';
export { DEFAULT_WINDOW_SIZING, type WindowSizing } from './event_window.js';
export type { Indexer } from './watch_cache.js';
