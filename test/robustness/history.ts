/**
 * What the robustness run records: every client operation with its real-time
 * interval and outcome, and every watch session's events. The checker reads
 * nothing else; the server's own account of itself is never trusted.
 */

/** A write's outcome: acknowledged, refused for certain (a 4xx), or unknown (the server died or answered 5xx). */
export type Outcome = 'ok' | 'failed' | 'unknown';

/** One create, CAS update or CAS delete of a ConfigMap. */
export interface WriteOp {
  kind: 'create' | 'update' | 'delete';
  key: string;
  /** The unique value this write stores (data.v); a delete stores none. */
  value?: string;
  /** The resourceVersion precondition (update, delete). */
  expect?: number;
  start: number;
  end: number;
  outcome: Outcome;
  /** The resourceVersion the acknowledgement carried. */
  rv?: number;
  /** The HTTP status and, for a refusal, the Status message (diagnostics). */
  code?: number;
  message?: string;
}

/** One consistent read (no resourceVersion) or exact list (resourceVersion=R, resourceVersionMatch=Exact). */
export interface ReadOp {
  kind: 'get' | 'list';
  key?: string;
  /** The exact revision asked for; undefined for a consistent read. */
  at?: number;
  start: number;
  end: number;
  /** The revision the answer is at (list metadata, or the object's own for a get; 0 for a get that found nothing). */
  rv: number;
  /** key -> [resourceVersion, value] of each object returned. */
  items: [string, number, string][];
  /**
   * The list a watcher took after 410 Gone to start again (a restarted server's watch cache begins at its
   * start-up revision, so, as upstream, older revisions are gone): the checker replays from it.
   */
  snapshot?: boolean;
  /** For a snapshot: the revision its watcher had reached; changes in (gapFrom, rv] were seen by no watch. */
  gapFrom?: number;
}

/** One event a watch session delivered. */
export interface WatchEventRecord {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  key: string;
  rv: number;
  value: string;
}

/** One watch request from `from` until it ended (the server died, the test stopped, or 410 Gone). */
export interface WatchSession {
  from: number;
  events: WatchEventRecord[];
  /** Ended with 410 Gone: the revision was compacted away (allowed, and the session checks nothing past it). */
  expired?: boolean;
  /** The message of the ERROR event that ended it, if any. */
  error?: string;
}

/** A whole run's record. */
export interface History {
  writes: WriteOp[];
  reads: ReadOp[];
  watches: WatchSession[];
}
