/**
 * The node lease, like upstream's component-helpers/apimachinery/lease
 * controller: a Lease named after the node in kube-node-lease, owned by the
 * Node, renewed every quarter of its duration (10 s of 40 s) by a PUT of the
 * last lease it wrote with a new renewTime. When there is no last lease, or
 * an update failed, it GETs the lease (creating it when missing) first.
 */
import { formatMicroTimestamp, NAMESPACE_NODE_LEASE, type Lease } from '../api/index.js';
import { isConflictError } from '../client/index.js';
import type { Clock } from '../clock/index.js';

/** Like upstream's maxUpdateRetries. */
export const LEASE_UPDATE_RETRIES = 5;

/** The lease calls; a ResourceClient<Lease> provides them. */
export interface LeaseAPI {
  getLease(name: string): Promise<Lease | undefined>;
  createLease(lease: Lease): Promise<Lease>;
  updateLease(lease: Lease): Promise<Lease>;
}

/** The renew interval upstream derives from the duration (kubelet's nodeLeaseRenewIntervalFraction 0.25). */
export function leaseRenewIntervalMs(durationSeconds: number): number {
  return durationSeconds * 1000 * 0.25;
}

/** Keeps one node's Lease renewed. */
export class NodeLeaseController {
  private latest: Lease | undefined;
  /** The Node's uid, for the owner reference (set after registration). */
  nodeUID: string | undefined;
  /** Counters for the fleet's stats. */
  readonly stats = { renewals: 0, creates: 0, errors: 0 };

  constructor(
    private readonly api: LeaseAPI,
    private readonly nodeName: string,
    private readonly durationSeconds: number,
    private readonly clock: Clock,
  ) {}

  /** The renewTime of the last lease written, if any. */
  get lastRenewTime(): string | undefined {
    return this.latest?.spec?.renewTime;
  }

  /** One renewal, like controller.sync. */
  async sync(): Promise<void> {
    if (this.latest !== undefined) {
      try {
        await this.retryUpdate(this.latest);
        return;
      } catch {
        // Fall through to a fresh read, like upstream after a failed update.
      }
    }
    const { lease, created } = await this.ensureLease();
    if (created) return;
    await this.retryUpdate(lease);
  }

  private async ensureLease(): Promise<{ lease: Lease; created: boolean }> {
    try {
      const have = await this.api.getLease(this.nodeName);
      if (have !== undefined) return { lease: have, created: false };
      const lease = await this.api.createLease(this.newLease(undefined));
      this.latest = lease;
      this.stats.creates++;
      return { lease, created: true };
    } catch (err) {
      this.stats.errors++;
      throw err;
    }
  }

  private async retryUpdate(base: Lease): Promise<void> {
    let lastErr: unknown;
    for (let i = 0; i < LEASE_UPDATE_RETRIES; i++) {
      try {
        this.latest = await this.api.updateLease(this.newLease(base));
        this.stats.renewals++;
        return;
      } catch (err) {
        lastErr = err;
        // A conflict means someone else wrote it: the next sync starts from a fresh read.
        if (isConflictError(err)) break;
      }
    }
    this.latest = undefined;
    this.stats.errors++;
    throw lastErr;
  }

  /** The lease to write: `base` (or a new one) held by this node and renewed now, like controller.newLease. */
  newLease(base: Lease | undefined): Lease {
    const now = formatMicroTimestamp(this.clock.now());
    const metadata = base?.metadata ?? { name: this.nodeName, namespace: NAMESPACE_NODE_LEASE };
    const owners =
      this.nodeUID !== undefined && (metadata.ownerReferences ?? []).length === 0
        ? [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.nodeUID }]
        : metadata.ownerReferences;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...metadata, ...(owners !== undefined ? { ownerReferences: owners } : {}) },
      spec: {
        ...base?.spec,
        holderIdentity: this.nodeName,
        leaseDurationSeconds: this.durationSeconds,
        renewTime: now,
      },
    };
  }
}
