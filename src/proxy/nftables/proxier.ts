/**
 * NftablesProxier: applies renderings (rules.ts), each one atomic
 * transaction: full ones with `nft -f -`, partial ones through a long-lived
 * `nft -i` (session.ts), so a one-service change does not start a process.
 * The state of what the kernel holds is committed only after nft accepted the
 * transaction; a failure makes the next sync full.
 */
import type { Executor } from '../exec.js';
import type { Proxier, SyncInput, SyncResult } from '../proxier.js';
import type { NftConfig } from './base.js';
import { FAMILY, TABLE } from './names.js';
import { NftState, commitNftables, releaseNftables, renderNftables, staleCount } from './rules.js';
import { NftSession } from './session.js';

/** Stale objects (flushed chains, unused slots) are deleted once this many wait, … */
export const STALE_PURGE_COUNT = 1000;
/** … or once the oldest has waited this long (checked on every sync, periodic ones included). */
export const STALE_PURGE_AFTER_MS = 30_000;

/** The nftables proxy mode. */
export class NftablesProxier implements Proxier {
  readonly mode = 'nftables' as const;
  private state = new NftState();
  /** When the oldest stale object became stale (performance.now()), undefined when there is none. */
  private staleSince: number | undefined;
  /** The long-lived nft for partial transactions. */
  readonly session: NftSession;

  constructor(
    private readonly exec: Executor,
    private readonly cfg: NftConfig,
  ) {
    this.session = new NftSession(exec.netns, exec.timeoutMs);
  }

  describe(): string {
    return `nftables (table ${FAMILY} ${TABLE})`;
  }

  async sync(input: SyncInput): Promise<SyncResult> {
    const t0 = performance.now();
    const waiting = staleCount(this.state);
    const purgeStale =
      waiting >= STALE_PURGE_COUNT || (this.staleSince !== undefined && t0 - this.staleSince >= STALE_PURGE_AFTER_MS);
    const r = renderNftables(input, this.cfg, this.state, { purgeStale });
    const renderMs = performance.now() - t0;
    if (r.bytes > 0 && input.full) {
      try {
        await this.exec.check(['nft', '-f', '-'], r.parts);
      } finally {
        releaseNftables(this.state, r);
      }
    } else if (r.bytes > 0) {
      this.exec.bytesIn += r.bytes;
      await this.session.apply(r.text);
    }
    commitNftables(this.state, r);
    if (staleCount(this.state) === 0) this.staleSince = undefined;
    else this.staleSince ??= t0;
    return { full: input.full, bytes: r.bytes, rules: { rules: r.rules, elements: r.elements }, renderMs };
  }

  /** Ends the long-lived nft. */
  close(): Promise<void> {
    this.session.close();
    return Promise.resolve();
  }

  /** Deletes the table, which takes every chain, map and set with it. */
  async cleanup(): Promise<void> {
    await this.exec.check(['nft', '-f', '-'], `add table ${FAMILY} ${TABLE}\ndelete table ${FAMILY} ${TABLE}\n`);
    this.state = new NftState();
    this.staleSince = undefined;
  }
}
