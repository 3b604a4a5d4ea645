/**
 * Messages between the store (event loop) and its writer thread. Values cross
 * as Uint8Array copies; the writer only ever returns values the event loop
 * does not already hold (TTL expiries).
 */
import type { SyncMode } from './schema.js';

export type WriteOp =
  | { op: 'create'; key: string; value: Uint8Array; expires: number | null }
  | { op: 'update'; key: string; value: Uint8Array; expectMod: number; expires: number | null }
  | { op: 'delete'; key: string; expectMod: number };

export type OpResult =
  | { ok: true; rev: number; created: number }
  | {
      ok: false;
      code: 'KeyExists' | 'KeyNotFound' | 'Conflict' | 'NoSpace' | 'Unavailable' | 'Busy';
      message?: string;
    };

/** A key deleted by TTL expiry, with the value it had. */
export interface Expiry {
  key: string;
  rev: number;
  prevRev: number;
  created: number;
  value: Uint8Array;
}

export type Request =
  | { type: 'batch'; id: number; ops: WriteOp[] }
  | { type: 'expire'; id: number; now: number }
  | { type: 'compact'; id: number; revision: number; step: number }
  | { type: 'vacuum'; id: number }
  | { type: 'disarm'; id: number }
  | { type: 'failpoint'; id: number; name: string; action: string | null }
  | { type: 'checkpoint'; id: number }
  | { type: 'close'; id: number };

export type Response =
  | { type: 'batch'; id: number; results: OpResult[]; commitMs: number }
  | { type: 'expire'; id: number; expired: Expiry[] }
  | { type: 'done'; id: number; deleted?: number; maxStepMs?: number; vacuumMs?: number }
  | { type: 'error'; id: number; message: string; code?: string }
  | { type: 'alarm'; noSpace: boolean; dbSizeBytes: number };

/** What the writer thread is started with. */
export interface WriterConfig {
  file: string;
  sync: SyncMode;
  quotaBytes: number;
  /** For tests of a full disk: SQLite's max_page_count. */
  maxPageCount?: number;
  /** The store started on a full disk: raise the NOSPACE alarm at once. */
  raiseNoSpace?: boolean;
}
