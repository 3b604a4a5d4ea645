/**
 * A compare-and-swap txn that survives a lost answer. Each attempt has a short deadline, so a write stuck on
 * a member whose leader died (etcd itself would hold it for 5 s + 2 election timeouts) is retried on another
 * member within about an election. Retrying is safe because the txn compares the key's mod revision: of all
 * attempts at most one can apply. When a retry then fails its compare, an earlier attempt may be the write
 * that moved the key, so the key's history after the compared revision is read back to tell ours from a
 * competitor's: an acknowledged write is never reported failed and never applied twice.
 */
import type { Etcd3, ITxnRequest, ITxnResponse } from 'etcd3';
import { unavailable } from '../errors.js';
import type { WatchEvent } from '../interface.js';
import {
  callDeadline,
  isNoLeaderError,
  isNotAppliedError,
  isNotSentError,
  isUnavailableError,
  mapEtcdError,
} from './client.js';
import { openWatch } from './watcher.js';

/** What a txn means to do to its key, so its effect can be recognized in the key's history. */
export interface TxnIntent {
  key: string;
  /** The mod revision the txn compares; 0 for a create (the key must not exist). */
  base: number;
  /** The value the txn puts, or null for a delete. */
  value: Buffer | null;
  /** For a create: a revision known to precede the first attempt, where the history search starts. */
  since: number;
}

/** Deadlines for committing one txn. */
export interface TxnTiming {
  /** Deadline of each attempt. */
  attemptMs: number;
  /** Time after which no new attempt starts and the last failure is returned. */
  budgetMs: number;
}

/** A txn's result: applied (at `revision`, with etcd's response when this attempt is the one that applied) or not. */
export type TxnOutcome =
  { succeeded: true; revision: number; response?: ITxnResponse } | { succeeded: false; response: ITxnResponse };

/** Commits `req` (whose compare is `intent`), retrying attempts whose answer was lost; see the file comment. */
export async function commitTxn(
  client: Etcd3,
  req: ITxnRequest,
  intent: TxnIntent,
  timing: TxnTiming,
): Promise<TxnOutcome> {
  const start = performance.now();
  // True once an attempt may have reached etcd without its answer reaching us.
  let ambiguous = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await client.kv.txn(req, callDeadline(timing.attemptMs));
      if (res.succeeded) return { succeeded: true, revision: Number(res.header.revision), response: res };
      if (!ambiguous) return { succeeded: false, response: res };
      const cur = res.responses[0]?.response_range?.kvs[0];
      const applied = await findApplied(client, intent, Number(cur?.mod_revision ?? 0), timing.attemptMs);
      return applied !== null ? { succeeded: true, revision: applied } : { succeeded: false, response: res };
    } catch (err) {
      if (!isUnavailableError(err)) throw mapEtcdError(err, intent.key);
      if (!isNotAppliedError(err)) ambiguous = true;
      if (performance.now() - start >= timing.budgetMs) throw mapEtcdError(err, intent.key);
      // An unsent call, or one refused by a member without a leader (partitioned), goes at once to another
      // member; otherwise, or when refusals go on (an election), wait a little for the election to finish.
      const quick = isNotSentError(err) || (isNoLeaderError(err) && attempt <= 3);
      const pause = quick ? 20 : Math.min(50 * attempt, 300);
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/**
 * The revision at which this txn's effect appears in the key's history, or null when a competitor's write
 * came first. For an update or delete that is the first change after `base`; for a create, any creation
 * after `since` with exactly our value (which carries a fresh uid), up to the key's `current` revision.
 */
async function findApplied(
  client: Etcd3,
  intent: TxnIntent,
  current: number,
  timeoutMs: number,
): Promise<number | null> {
  const from = intent.base > 0 ? intent.base : intent.since;
  // A prefix watch: keys that merely start with ours are skipped below.
  const watch = openWatch(client, intent.key, { fromRevision: from, progressNotify: false }, 10_000);
  const timer = setTimeout(() => watch.stop(), 2 * timeoutMs);
  try {
    for await (const ev of watch) {
      if (ev.key !== intent.key) continue;
      if (intent.base > 0) return isOurs(ev, intent) ? ev.revision : null;
      if (isOurs(ev, intent) && ev.kv?.createRevision === ev.revision) return ev.revision;
      if (ev.revision >= current) return null;
    }
  } catch {
    // Compacted or cut off: the history cannot tell.
  } finally {
    clearTimeout(timer);
    watch.stop();
  }
  throw unavailable(`etcd: the outcome of a write to ${intent.key} is unknown (its answer was lost)`);
}

function isOurs(ev: WatchEvent, intent: TxnIntent): boolean {
  return intent.value === null ? ev.type === 'delete' : ev.type === 'put' && ev.kv?.value.equals(intent.value) === true;
}
