/** The embedded SQLite backend: kscale's default storage. */
export { openSqliteStorage, SqliteStorage, dbFile, type SqliteOptions } from './store.js';
export type { SyncMode } from './schema.js';
export { backupSqlite, restoreSqlite, inspectSnapshot, type SnapshotInfo } from './backup.js';
