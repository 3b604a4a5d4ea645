/**
 * The Storage contract over a real etcd v3 cluster, like kube-apiserver's
 * etcd3 store (apiserver/pkg/storage/etcd3/store.go): writes are transactions
 * that compare the key's mod revision, reads are ranges at a revision, and
 * watches are etcd watches started one revision after the requested one.
 */
import type { Etcd3, IRequestOp, ITxnResponse } from 'etcd3';
import { checkValueSize, conflict, keyExists, keyNotFound } from '../errors.js';
import { prefixEnd } from '../continue.js';
import type {
  CreateOptions,
  Freshness,
  DeleteOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageStatus,
  TryUpdate,
  WatchOptions,
  Watcher,
} from '../interface.js';
import {
  callDeadline,
  createEtcdClient,
  mapEtcdError,
  retryRead,
  toKeyValue,
  type Etcd3ClientOptions,
} from './client.js';
import { LeaseManager } from './lease.js';
import { getCurrent, getKey, listPrefix, type RevisionSource } from './list.js';
import { Maintenance } from './maintenance.js';
import { commitTxn, type TxnOutcome, type TxnTiming } from './txn.js';
import { openWatch } from './watcher.js';

/** Options for Etcd3Storage. */
export interface Etcd3StorageOptions extends Etcd3ClientOptions {
  /** etcd's --quota-backend-bytes, reported by status(). Default 2 GiB, etcd's own default. */
  quotaBytes?: number;
  /** Events a watcher may buffer before it is cut off with TooSlow. */
  watchCapacity?: number;
  /** Injected time for lease reuse. */
  now?: () => number;
}

/** Storage backed by etcd v3 through the `etcd3` client. */
export class Etcd3Storage implements Storage, RevisionSource {
  private readonly client: Etcd3;
  private readonly leases: LeaseManager;
  private readonly maintenance: Maintenance;
  private readonly watchCapacity: number;
  private readonly timing: TxnTiming;
  /** The newest revision this store has seen in a response: where a create's history search may start. */
  private seen = 0;

  constructor(opts: Etcd3StorageOptions) {
    this.timing = { attemptMs: opts.attemptTimeoutMs ?? 1_500, budgetMs: opts.callTimeoutMs ?? 10_000 };
    this.client = createEtcdClient(opts);
    this.leases = new LeaseManager(this.client, opts.now !== undefined ? { now: opts.now } : {});
    this.maintenance = new Maintenance(this.client, opts.quotaBytes ?? 2 * 1024 ** 3);
    this.watchCapacity = opts.watchCapacity ?? 100_000;
  }

  async currentRevision(): Promise<number> {
    // A count-only range of one key is the cheapest request that returns a header.
    const res = await retryRead(() =>
      this.client.kv.range(
        { key: Buffer.from('compact_rev_key'), count_only: true },
        callDeadline(this.timing.attemptMs),
      ),
    );
    return this.saw(Number(res.header.revision));
  }

  /**
   * One read-only transaction (linearizable) at the current revision: the count of keys under
   * `prefix`, and whether any of them was modified after `since`. A put after `since` leaves a
   * key with a newer mod revision; a delete of a key older than `since` lowers the count; so
   * both unchanged means the prefix is exactly as it was at `since`.
   */
  async freshness(prefix: string, since: number, count: number): Promise<Freshness> {
    const key = Buffer.from(prefix, 'utf8');
    const rangeEnd = Buffer.from(prefixEnd(prefix), 'utf8');
    const res = await retryRead(() =>
      this.client.kv.txn(
        {
          compare: [],
          success: [
            { request_range: { key, range_end: rangeEnd, count_only: true } },
            { request_range: { key, range_end: rangeEnd, keys_only: true, limit: 1, min_mod_revision: since + 1 } },
          ],
          failure: [],
        },
        callDeadline(this.timing.attemptMs),
      ),
    );
    const total = Number(res.responses[0]?.response_range?.count ?? -1);
    const newer = res.responses[1]?.response_range?.kvs?.length ?? 1;
    return { revision: this.saw(Number(res.header.revision)), unchanged: total === count && newer === 0 };
  }

  /** The oldest revision still readable, as far as this store knows. */
  compactedRevision(): Promise<number> {
    return this.maintenance.compactedRevision();
  }

  get(key: string, opts: GetOptions = {}): Promise<KeyValue> {
    return getKey(this.client, key, opts, this, this.timing.attemptMs);
  }

  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return listPrefix(this.client, prefix, opts, this);
  }

  async create(key: string, value: Buffer, opts: CreateOptions = {}): Promise<KeyValue> {
    checkValueSize(key, value);
    const lease = opts.ttlSeconds !== undefined ? await this.lease(opts.ttlSeconds) : '0';
    if (this.seen === 0) await this.currentRevision();
    const res = await this.txn(key, 0, value, [put(key, value, lease)], [get(key)]);
    if (!res.succeeded) throw keyExists(key);
    const rev = res.revision;
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: GuaranteedUpdateOptions = {}): Promise<KeyValue> {
    let cur = await getCurrent(this.client, key, this, this.timing.attemptMs);
    for (;;) {
      if (cur === null && opts.ignoreNotFound !== true) throw keyNotFound(key);
      const want = opts.precondition?.modRevision;
      // `cur` is always fresh (read, or returned by the failed txn), so a mismatch is final.
      if (want !== undefined && cur?.modRevision !== want)
        throw conflict(key, `precondition failed: modRevision ${want}`);
      const next = await tryUpdate(cur);
      checkValueSize(key, next.value);
      // Like upstream, an unchanged value writes nothing and keeps the revision.
      if (cur !== null && cur.value.equals(next.value)) return cur;
      const lease = next.ttlSeconds !== undefined ? await this.lease(next.ttlSeconds) : '0';
      const res = await this.txn(key, cur?.modRevision ?? 0, next.value, [put(key, next.value, lease)], [get(key)]);
      if (res.succeeded) {
        const rev = res.revision;
        return { key, value: next.value, createRevision: cur?.createRevision ?? rev, modRevision: rev };
      }
      // Lost the race: retry against the value the failed txn read, saving a round trip.
      cur = rangeResult(res.response);
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KeyValue> {
    let cur = await getCurrent(this.client, key, this, this.timing.attemptMs);
    for (;;) {
      if (cur === null) throw keyNotFound(key);
      const want = opts.precondition?.modRevision;
      if (want !== undefined && cur.modRevision !== want)
        throw conflict(key, `precondition failed: modRevision ${want}`);
      if (opts.validate !== undefined) await opts.validate(cur);
      const res = await this.txn(
        key,
        cur.modRevision,
        null,
        [{ request_delete_range: { key: Buffer.from(key, 'utf8'), prev_kv: true } }],
        [get(key)],
      );
      if (res.succeeded) {
        const prev = res.response?.responses[0]?.response_delete_range?.prev_kvs[0];
        const deleted = prev !== undefined ? toKeyValue(prev) : cur;
        return { ...deleted, modRevision: res.revision };
      }
      cur = rangeResult(res.response);
    }
  }

  watch(prefix: string, opts: WatchOptions = {}): Watcher {
    return openWatch(this.client, prefix, opts, this.watchCapacity);
  }

  compact(revision: number): Promise<void> {
    return this.maintenance.compact(revision);
  }

  async status(): Promise<StorageStatus> {
    return this.maintenance.status();
  }

  disarmAlarms(): Promise<void> {
    return this.maintenance.disarmAlarms();
  }

  defragment(): Promise<void> {
    return this.maintenance.defragment();
  }

  async close(): Promise<void> {
    this.client.close();
  }

  /** A txn comparing the key's mod revision (0: the key must not exist) that puts `value` (null: deletes). */
  private async txn(
    key: string,
    modRevision: number,
    value: Buffer | null,
    success: IRequestOp[],
    failure: IRequestOp[],
  ): Promise<TxnOutcome> {
    const req = {
      compare: [
        { key: Buffer.from(key, 'utf8'), target: 'Mod' as const, result: 'Equal' as const, mod_revision: modRevision },
      ],
      success,
      failure,
    };
    const intent = { key, base: modRevision, value, since: this.seen };
    const out = await commitTxn(this.client, req, intent, this.timing);
    this.saw(out.succeeded ? out.revision : Number(out.response.header.revision));
    return out;
  }

  private saw(revision: number): number {
    if (revision > this.seen) this.seen = revision;
    return revision;
  }

  private async lease(ttlSeconds: number): Promise<string> {
    try {
      return await this.leases.leaseFor(ttlSeconds);
    } catch (err) {
      throw mapEtcdError(err);
    }
  }
}

function put(key: string, value: Buffer, lease: string): IRequestOp {
  return { request_put: { key: Buffer.from(key, 'utf8'), value, lease } };
}

function get(key: string): IRequestOp {
  return { request_range: { key: Buffer.from(key, 'utf8') } };
}

/** The current value read by a failed txn's range, or null when the key is gone. */
function rangeResult(res: ITxnResponse): KeyValue | null {
  const kv = res.responses[0]?.response_range?.kvs[0];
  return kv === undefined ? null : toKeyValue(kv);
}
