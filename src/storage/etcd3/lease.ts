/**
 * Grants etcd leases for keys with a TTL, reusing one lease for every key
 * written with the same TTL within a short window, like upstream's etcd3
 * leaseManager: one lease per event write would flood etcd's lessor.
 */
import type { Etcd3 } from 'etcd3';

interface CachedLease {
  id: Promise<string>;
  grantedAt: number;
}

/** Options for lease reuse. */
export interface LeaseManagerOptions {
  /** How long a granted lease is reused for the same TTL. Default 1 s. */
  reuseWindowMs?: number;
  /** Injected time, in ms since the epoch. */
  now?: () => number;
}

/** Hands out lease ids per TTL, granting a new lease once the reuse window has passed. */
export class LeaseManager {
  private readonly cache = new Map<number, CachedLease>();
  private readonly reuseMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: Etcd3,
    opts: LeaseManagerOptions = {},
  ) {
    this.reuseMs = opts.reuseWindowMs ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * A lease id that keeps a key alive at least `ttlSeconds`. A reused lease
   * was granted up to one window earlier, so the granted TTL adds that window:
   * a key never expires before its TTL, and at most one window after it.
   */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const now = this.now();
    const cached = this.cache.get(ttl);
    if (cached !== undefined && now - cached.grantedAt < this.reuseMs) return cached.id;
    const grantTtl = ttl + Math.ceil(this.reuseMs / 1000);
    const id = this.client.leaseClient.leaseGrant({ TTL: grantTtl }).then((r) => r.ID);
    const entry = { id, grantedAt: now };
    this.cache.set(ttl, entry);
    // A failed grant must not be handed to later writers.
    id.catch(() => {
      if (this.cache.get(ttl) === entry) this.cache.delete(ttl);
    });
    return id;
  }
}
