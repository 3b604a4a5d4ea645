/** The storage component's public surface: the byte-level and object-level contracts, their errors, and the backends. */
export type * from './interface.js';
export type * from './objects.js';
export { consumeWatch, type WatchSink } from './watch_sink.js';
export { DirectObjectStorage, type DirectObjectStorageOptions } from './direct_objects.js';
export {
  EncodedObject,
  jsonCodec,
  resourceVersionParts,
  spliceResourceVersion,
  type ObjectCodec,
} from './encoded_object.js';
export * from './errors.js';
export { ownedBuffer } from './owned_buffer.js';
export {
  openSqliteStorage,
  SqliteStorage,
  backupSqlite,
  restoreSqlite,
  inspectSnapshot,
  type SnapshotInfo,
  type SqliteOptions,
  type SyncMode,
} from './sqlite/index.js';
