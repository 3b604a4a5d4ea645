/**
 * Reads (get, list) over etcd ranges, with upstream's revision rules: a read
 * at a compacted revision is Expired, one past the current revision is
 * TooLargeResourceVersion, and every page of a paginated list is pinned to the
 * first page's revision through the continue token.
 */
import type { Etcd3, IRangeRequest, IRangeResponse } from 'etcd3';
import { encodeContinue, listStart, prefixEnd } from '../continue.js';
import { expired, keyNotFound, tooLargeResourceVersion } from '../errors.js';
import type { GetOptions, KeyValue, ListOptions, ListResult } from '../interface.js';
import { callDeadline, isCompactedError, isFutureRevisionError, retryRead, toKeyValue } from './client.js';

/** What a reader needs from its store to explain revision errors. */
export interface RevisionSource {
  /** The oldest revision still readable, for Expired errors. */
  compactedRevision(): Promise<number>;
  currentRevision(): Promise<number>;
}

/** Runs a range with read retries (each attempt `attemptMs` long when given) and maps compacted/future revisions. */
export async function range(
  client: Etcd3,
  req: IRangeRequest,
  revs: RevisionSource,
  attemptMs?: number,
): Promise<IRangeResponse> {
  const requested = Number(req.revision ?? 0);
  try {
    return await retryRead(() => client.kv.range(req, attemptMs !== undefined ? callDeadline(attemptMs) : undefined));
  } catch (err) {
    if (isCompactedError(err)) throw expired(requested, await revs.compactedRevision().catch(() => 0));
    if (isFutureRevisionError(err))
      throw tooLargeResourceVersion(requested, await revs.currentRevision().catch(() => 0));
    throw err;
  }
}

/** Reads one key, each attempt `attemptMs` long; KeyNotFound when it is absent at that revision. */
export async function getKey(
  client: Etcd3,
  key: string,
  opts: GetOptions,
  revs: RevisionSource,
  attemptMs: number,
): Promise<KeyValue> {
  const res = await range(client, { key: Buffer.from(key, 'utf8'), revision: opts.revision ?? 0 }, revs, attemptMs);
  const kv = res.kvs[0];
  if (kv === undefined) throw keyNotFound(key);
  return toKeyValue(kv);
}

/** Reads the current value of a key, or null, each attempt `attemptMs` long; used by the compare-and-swap loops. */
export async function getCurrent(
  client: Etcd3,
  key: string,
  revs: RevisionSource,
  attemptMs: number,
): Promise<KeyValue | null> {
  const res = await range(client, { key: Buffer.from(key, 'utf8') }, revs, attemptMs);
  const kv = res.kvs[0];
  return kv === undefined ? null : toKeyValue(kv);
}

/** Lists keys under `prefix`, like upstream's etcd3 store GetList with limit and continue. */
export async function listPrefix(
  client: Etcd3,
  prefix: string,
  opts: ListOptions,
  revs: RevisionSource,
): Promise<ListResult> {
  if (!prefix.endsWith('/')) throw new Error(`list prefix must end with '/': ${prefix}`);
  const from = listStart(prefix, opts);
  const start = from.startKey ?? prefix;
  const revision = from.revision ?? 0;
  const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : 0;
  const res = await range(
    client,
    { key: Buffer.from(start, 'utf8'), range_end: Buffer.from(prefixEnd(prefix), 'utf8'), revision, limit },
    revs,
  );
  // A latest-state read reports the header revision, and later pages pin to it.
  const readAt = revision > 0 ? revision : Number(res.header.revision);
  const items = res.kvs.map(toKeyValue);
  const result: ListResult = { items, revision: readAt };
  const last = items[items.length - 1];
  if (res.more && last !== undefined) {
    // The next page starts just after the last key returned, like upstream's lastKey + "\x00".
    result.continue = encodeContinue(prefix, last.key + '\x00', readAt);
    // etcd counts every key in [start, end) while it ranges, so this costs nothing extra.
    result.remainingItemCount = Number(res.count) - items.length;
  }
  return result;
}
