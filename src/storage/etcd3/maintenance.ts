/**
 * Compaction, status and defragmentation over etcd's KV and Maintenance APIs.
 * etcd does not report its compacted revision, so, like kube-apiserver's
 * compactor, we record it in the key `compact_rev_key` after each compaction.
 */
import type { Etcd3 } from 'etcd3';
import { StorageError, tooLargeResourceVersion } from '../errors.js';
import type { StorageStatus } from '../interface.js';
import { isCompactedError, isFutureRevisionError, mapEtcdError, retryRead } from './client.js';

/** Upstream's key for the last compaction (kube-apiserver stores the revision as its value). */
export const COMPACT_REV_KEY = 'compact_rev_key';

/** etcd's default `--max-request-bytes` (1.5 MiB): the largest single write it accepts. */
export const ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/** Compaction and space management for one etcd cluster. */
export class Maintenance {
  /** The highest revision this process compacted at; survives a failed bookkeeping write. */
  private compactedHere = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly quotaBytes: number,
  ) {}

  /** The newest compaction revision recorded by us or another API server sharing the cluster. */
  async compactedRevision(): Promise<number> {
    const res = await retryRead(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY) }));
    const recorded = Number(res.kvs[0]?.value.toString('utf8') ?? 0);
    return Math.max(this.compactedHere, Number.isFinite(recorded) ? recorded : 0);
  }

  /**
   * Physically compacts etcd at `revision` (waiting until the old versions are
   * gone), then records it. Compacting at or below an earlier compaction is a no-op.
   */
  async compact(revision: number): Promise<void> {
    if (revision <= (await this.compactedRevision())) return;
    try {
      await this.client.kv.compact({ revision, physical: true });
    } catch (err) {
      if (isCompactedError(err)) return; // someone compacted further already
      if (isFutureRevisionError(err)) throw tooLargeResourceVersion(revision, await this.currentRevision());
      throw mapEtcdError(err);
    }
    this.compactedHere = Math.max(this.compactedHere, revision);
    // Best effort: under a NOSPACE alarm etcd refuses puts, yet compaction is
    // exactly what recovers it, so a failed record must not fail the compaction.
    await this.client.kv
      .put({ key: Buffer.from(COMPACT_REV_KEY), value: Buffer.from(String(revision)) })
      .catch(() => undefined);
  }

  /** Size, quota, alarms and revisions of the member we are connected to. */
  async status(): Promise<StorageStatus> {
    const [st, alarms, compacted] = await Promise.all([
      retryRead(() => this.client.maintenance.status()),
      this.alarms(),
      this.compactedRevision(),
    ]);
    const inUse = Number(st.dbSizeInUse);
    return {
      dbSizeBytes: Number(st.dbSize),
      ...(inUse > 0 ? { dbSizeInUseBytes: inUse } : {}),
      quotaBytes: this.quotaBytes,
      alarms: [...new Set(alarms.map((a) => a.alarm))],
      currentRevision: Number(st.header.revision),
      compactedRevision: compacted,
    };
  }

  /** Defragments the connected member; NOSPACE stays raised (etcd never clears it by itself). */
  async defragment(): Promise<void> {
    try {
      await this.client.maintenance.defragment({ deadline: Date.now() + 5 * 60_000 });
    } catch (err) {
      throw mapEtcdError(err);
    }
  }

  /**
   * `etcdctl alarm disarm` for NOSPACE; refused (NoSpace) while the database
   * has no room for the largest write etcd accepts. etcd raises NOSPACE when
   * size + request > quota, so the size alone may sit just under the quota
   * while full; requiring a whole request's room makes the refusal certain
   * until compaction and defragmentation have freed space.
   */
  async disarmAlarms(): Promise<void> {
    const nospace = (await this.alarms()).filter((a) => a.alarm === 'NOSPACE');
    if (nospace.length === 0) return;
    const st = await retryRead(() => this.client.maintenance.status());
    const room = this.quotaBytes - Number(st.dbSize);
    if (room < Math.min(ETCD_MAX_REQUEST_BYTES, this.quotaBytes / 2))
      throw new StorageError(
        'NoSpace',
        `database size ${Number(st.dbSize)} still exceeds the quota ${this.quotaBytes} less room for one request: compact and defragment first`,
      );
    try {
      for (const a of nospace)
        await this.client.maintenance.alarm({ action: 'Deactivate', memberID: a.memberID, alarm: 'Nospace' });
    } catch (err) {
      throw mapEtcdError(err);
    }
  }

  private async alarms(): Promise<{ memberID: string; alarm: string }[]> {
    const res = await retryRead(() => this.client.maintenance.alarm({ action: 'Get', memberID: 0, alarm: 'None' }));
    // The etcd3 client's proto spells the enum 'Nospace'; report etcd's own NOSPACE.
    return res.alarms
      .map((a) => ({ memberID: a.memberID, alarm: String(a.alarm).toUpperCase() }))
      .filter((a) => a.alarm !== 'NONE');
  }

  private async currentRevision(): Promise<number> {
    const res = await retryRead(() => this.client.kv.range({ key: Buffer.from(COMPACT_REV_KEY), count_only: true }));
    return Number(res.header.revision);
  }
}
