/**
 * Reads on the event loop, through a separate read-only connection. In WAL
 * mode a reader sees only committed (and, with FULL sync, fsynced) writes and
 * never waits for the writer thread.
 */
import Database from 'better-sqlite3';
import { expired, keyNotFound, tooLargeResourceVersion, unavailable } from '../errors.js';
import { encodeContinue, listStart, prefixEnd } from '../continue.js';
import type { KeyValue, ListOptions, ListResult } from '../interface.js';
import { applyPragmas, readMeta, type SyncMode } from './schema.js';

interface Row {
  name: string;
  id: number;
  created: number;
  value: Buffer;
}

/** One row of the log, for watch replay. */
export interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  value: Buffer;
  prevId: number | null;
  prevCreated: number | null;
  prevValue: Buffer | null;
}

/** Opens the database read-side and runs every query the store needs. */
export class Reader {
  private readonly db: Database.Database;
  private readonly q;

  constructor(file: string, sync: SyncMode) {
    try {
      this.db = new Database(file, { fileMustExist: true });
      applyPragmas(this.db, sync);
      this.db.prepare('SELECT COUNT(*) FROM kv LIMIT 1').get();
    } catch (err) {
      throw unavailable(`cannot open storage file ${file}: ${(err as Error).message}`, err);
    }
    const db = this.db;
    this.q = {
      revision: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'kv'").pluck(),
      getLatest: db.prepare(
        'SELECT c.name, c.id, c.created, kv.value FROM current c JOIN kv ON kv.id = c.id WHERE c.name = ?',
      ),
      getAt: db.prepare(
        'SELECT name, id, created, deleted, value FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1',
      ),
      listLatest: db.prepare(
        'SELECT c.name, c.id, c.created, kv.value FROM current c JOIN kv ON kv.id = c.id WHERE c.name >= ? AND c.name < ? ORDER BY c.name LIMIT ?',
      ),
      countLatest: db.prepare('SELECT COUNT(*) FROM current WHERE name >= ? AND name < ?').pluck(),
      listAt: db.prepare(
        'SELECT kv.name, kv.id, kv.created, kv.value, kv.deleted FROM (SELECT MAX(id) AS id FROM kv WHERE name >= ? AND name < ? AND id <= ? GROUP BY name ORDER BY name LIMIT ?) m JOIN kv ON kv.id = m.id ORDER BY kv.name',
      ),
      log: db.prepare(
        'SELECT kv.id, kv.name, kv.created, kv.deleted, kv.value, p.id AS prevId, p.created AS prevCreated, p.value AS prevValue FROM kv LEFT JOIN kv p ON p.id = kv.prev WHERE kv.id > ? AND kv.id <= ? AND kv.name >= ? AND kv.name < ? ORDER BY kv.id LIMIT ?',
      ),
      meta: db.prepare('SELECT v FROM meta WHERE k = ?').pluck(),
    };
  }

  /** The latest committed revision. */
  revision(): number {
    return (this.q.revision.get() as number | undefined) ?? 0;
  }

  /** The compacted revision recorded on disk. */
  compactedRevision(): number {
    return readMeta(this.db, 'compact_rev');
  }

  /** Whether the NOSPACE alarm was left raised on disk. */
  alarmRaised(): boolean {
    return readMeta(this.db, 'alarm_nospace') === 1;
  }

  /** Reads one key at `revision` (0: latest). */
  get(key: string, revision: number, compacted: number): KeyValue {
    if (revision <= 0) {
      const r = this.q.getLatest.get(key) as Row | undefined;
      if (r === undefined) throw keyNotFound(key);
      return toKV(r);
    }
    return this.db.transaction(() => {
      this.checkRevision(revision, compacted);
      const r = this.q.getAt.get(key, revision) as (Row & { deleted: number }) | undefined;
      if (r === undefined || r.deleted === 1) throw keyNotFound(key);
      return toKV(r);
    })();
  }

  /** Lists keys under `prefix`, paging with continue tokens pinned to the first page's revision. */
  list(prefix: string, opts: ListOptions, compacted: number): ListResult {
    const end = prefixEnd(prefix);
    const from = listStart(prefix, opts);
    const start = from.startKey ?? prefix;
    const revision = from.revision ?? 0;
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : -1;
    return this.db.transaction((): ListResult => {
      const latest = this.revision();
      let rows: Row[];
      let readAt: number;
      if (revision <= 0 || revision === latest) {
        readAt = latest;
        rows = this.q.listLatest.all(start, end, limit < 0 ? -1 : limit + 1) as Row[];
      } else {
        this.checkRevision(revision, compacted, latest);
        readAt = revision;
        // The limit applies before tombstones are dropped, so fetch generously and stop when a short page proves the end.
        rows = [];
        let from = start;
        for (;;) {
          const want = limit < 0 ? -1 : limit + 1 - rows.length;
          const batch = this.q.listAt.all(from, end, revision, want) as (Row & { deleted: number })[];
          for (const r of batch) if (r.deleted === 0) rows.push(r);
          if (limit < 0 || batch.length < want || rows.length > limit) break;
          from = batch[batch.length - 1].name + '\u0000';
        }
      }
      const result: ListResult = { items: [], revision: readAt };
      if (limit >= 0 && rows.length > limit) {
        rows.length = limit + 1;
        const next = rows.pop()!;
        result.continue = encodeContinue(prefix, next.name, readAt);
        // Counting the rest costs O(remaining) per page, so only the first page of a list pays for it.
        if (readAt === latest && (opts.continue === undefined || opts.continue === ''))
          result.remainingItemCount = this.q.countLatest.get(next.name, end) as number;
      }
      result.items = rows.map(toKV);
      return result;
    })();
  }

  /** Log rows under `prefix` with after < id <= upTo, oldest first, at most `limit`. */
  log(prefix: string, after: number, upTo: number, limit: number): LogRow[] {
    return this.q.log.all(after, upTo, prefix, prefixEnd(prefix), limit) as LogRow[];
  }

  /** Closes the connection. */
  close(): void {
    this.db.close();
  }

  private checkRevision(revision: number, compacted: number, latest = this.revision()): void {
    if (revision < compacted) throw expired(revision, compacted);
    if (revision > latest) throw tooLargeResourceVersion(revision, latest);
  }
}

function toKV(r: Row): KeyValue {
  return { key: r.name, value: r.value, createRevision: r.created, modRevision: r.id };
}
