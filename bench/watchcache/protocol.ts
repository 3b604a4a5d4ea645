/**
 * What the orchestrator and its two kinds of child process (the watch client
 * and the writer) say to each other over IPC, plus the one clock they share.
 * Children are forked with `serialization: 'advanced'`, so typed arrays of
 * per-update timestamps travel without copying into JSON.
 */

/**
 * Milliseconds on CLOCK_MONOTONIC, which every process on the machine shares:
 * a write's send time in the writer and its receipt in a watch client compare
 * directly, with no wall-clock steps or per-process time origins in between.
 */
export function monoMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The marker the writer puts in status.message: `wcb u=<update id> t=<send time, monoMs>`. */
export const MARKER = 'wcb u=';

/** Where the server listens. */
export interface Target {
  host: string;
  port: number;
}

// ---- watch client ----

/** Orchestrator to watch client. */
export type WatchClientRequest =
  | { type: 'open'; target: Target; paths: string[]; concurrency: number; timeoutMs: number }
  | { type: 'stats' }
  /** Forget the receipts recorded so far (call when a measured phase starts). */
  | { type: 'reset' }
  | { type: 'collect' }
  | { type: 'close' };

/** Counters of one watch client. */
export interface WatchStats {
  /** Watches answered 200. */
  opened: number;
  /** Watches refused (non-200 or a connection error). */
  failed: number;
  /** Watches the server ended while the client still wanted them. */
  closedByServer: number;
  /** Frames by type: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR. */
  frames: Record<string, number>;
  /** Frames carrying the writer's marker since the last reset. */
  marked: number;
  /** Body bytes received. */
  bytes: number;
  firstError?: string;
}

/** Watch client to orchestrator. */
export type WatchClientReply =
  | { type: 'opened'; stats: WatchStats }
  | { type: 'stats'; stats: WatchStats }
  /** Update id and receipt time (monoMs) of each marked frame since the last reset. */
  | { type: 'collected'; ids: Float64Array; times: Float64Array; dropped: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };

// ---- writer ----

/** Creates `count` pods named pod-<i> on node-<i % nodes>, closed loop on `connections` connections. */
export interface CreateJob {
  type: 'create';
  target: Target;
  namespace: string;
  count: number;
  nodes: number;
  connections: number;
  maxMs: number;
}

/** PATCHes pods/status at a fixed arrival rate (open loop): update k goes to pod-<k % pods>. */
export interface ChurnJob {
  type: 'churn';
  target: Target;
  namespace: string;
  count: number;
  rate: number;
  pods: number;
  /** The k-th PATCH goes to pod (k + offset) mod pods. */
  offset: number;
  connections: number;
  /** Arrivals stop after maxMs; answers are awaited a little longer. */
  maxMs: number;
  graceMs: number;
}

/** Orchestrator to writer. */
export type WriterRequest = CreateJob | ChurnJob;

/** What a writer job did. */
export interface WriterResult {
  ok: number;
  errors: number;
  statuses: Record<string, number>;
  firstError?: string;
  /** Scheduled but never answered before the time bound. */
  unanswered: number;
  /** Of those, never sent: every connection was waiting on the server (open loop only). */
  unsent: number;
  elapsedMs: number;
  /** ok per second. */
  perSec: number;
  /** Churn only: scheduled send time (monoMs) of update k, the time written into the object. */
  sent?: Float64Array;
  /** Churn only: when update k's 2xx answer arrived (monoMs), NaN if it failed. */
  acked?: Float64Array;
}

/** Writer to orchestrator. */
export type WriterReply = { type: 'result'; result: WriterResult } | { type: 'error'; message: string };
