/** The storage component's public surface: the contract, its errors, and the backends. */
export type * from './interface.js';
export * from './errors.js';
export { openSqliteStorage, SqliteStorage, type SqliteOptions, type SyncMode } from './sqlite/index.js';
