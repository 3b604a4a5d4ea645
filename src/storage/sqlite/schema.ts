/**
 * The embedded store's tables, kine-style: `kv` is an append-only log whose
 * row id is the revision; `current` indexes the live row of each key so that
 * latest reads and compare-and-swap never scan history (kine's GROUP BY over
 * the whole log is what made its lists slow).
 */
import type Database from 'better-sqlite3';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id      INTEGER PRIMARY KEY AUTOINCREMENT, -- the revision of this write
  name    TEXT    NOT NULL,
  created INTEGER NOT NULL,                  -- create revision of this key's lifetime
  prev    INTEGER NOT NULL,                  -- the previous row of this key, 0 for a creation
  deleted INTEGER NOT NULL,                  -- 1 for a delete tombstone (value empty)
  value   BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_name_id ON kv(name, id);
CREATE TABLE IF NOT EXISTS current (
  name    TEXT    PRIMARY KEY,
  id      INTEGER NOT NULL,
  created INTEGER NOT NULL,
  expires INTEGER                            -- ms since the epoch, for keys with a TTL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS current_expires ON current(expires) WHERE expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
`;

/** How writes reach the disk: FULL fsyncs every commit (etcd's durability); NORMAL may lose the last commits on power loss. */
export type SyncMode = 'full' | 'normal';

/** Pragmas shared by the reader and the writer connection. */
export function applyPragmas(db: Database.Database, sync: SyncMode): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  // Bounded WAL: after each checkpoint the file is truncated back to this size.
  db.pragma('journal_size_limit = 67108864');
  db.pragma('cache_size = -65536');
}

/** Reads an integer from the meta table. */
export function readMeta(db: Database.Database, k: string): number {
  const row = db.prepare('SELECT v FROM meta WHERE k = ?').get(k) as { v: number } | undefined;
  return row?.v ?? 0;
}
