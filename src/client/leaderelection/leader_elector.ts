/**
 * LeaderElector, like client-go's tools/leaderelection with a LeaseLock: a
 * candidate acquires a coordination.k8s.io Lease when it is free or its
 * holder has not renewed within leaseDuration, renews every retryPeriod, and
 * gives up leadership when it cannot renew within renewDeadline. Writes are
 * compare-and-swap on the Lease's resourceVersion, so two candidates never
 * both hold it. Upstream's defaults: 15 s lease, 10 s deadline, 2 s retry.
 */
import {
  formatMicroTimestamp,
  isAlreadyExistsError,
  isConflictError,
  isNotFoundError,
  type Lease,
} from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import { silentLogger, type ClientLogger } from '../logger.js';
import type { RESTClient } from '../rest/client.js';
import type { ResourceClient } from '../rest/resource.js';
import { RESOURCES } from '../rest/resources.js';
import { leaderElectionMetrics } from './metrics.js';

/** LeaderElectionConfig. */
export interface LeaderElectionConfig {
  client: RESTClient;
  clock: Clock;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  logger?: ClientLogger;
  /** Called once leadership is acquired; `signal` aborts when it is lost. */
  onStartedLeading(signal: AbortSignal): void;
  /** Called when leadership is lost (or the elector stops while leading). */
  onStoppedLeading(): void;
  /** Called whenever the observed leader changes. */
  onNewLeader?(identity: string): void;
}

/** Runs one candidate's election loop. */
export class LeaderElector {
  private readonly leases: ResourceClient<Lease>;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly log: ClientLogger;
  private observed: Lease | undefined;
  private observedAt = 0;
  private leading = false;
  private lastLeader = '';

  constructor(private readonly cfg: LeaderElectionConfig) {
    this.leases = cfg.client.resource<Lease>(RESOURCES.leases);
    this.leaseDurationMs = cfg.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = cfg.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = cfg.retryPeriodMs ?? 2_000;
    this.log = cfg.logger ?? silentLogger;
    if (this.renewDeadlineMs >= this.leaseDurationMs)
      throw new Error('leaseDuration must be greater than renewDeadline');
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /** Acquires, leads and renews until `signal` aborts or leadership is lost; releases the lease on abort. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !(await this.tryAcquireOrRenew())) await this.sleep(this.retryPeriodMs, signal);
    if (signal.aborted) return;
    this.leading = true;
    leaderElectionMetrics()?.on(this.cfg.name);
    const lost = new AbortController();
    this.cfg.onStartedLeading(lost.signal);
    let lastRenew = this.cfg.clock.monotonic();
    while (!signal.aborted) {
      await this.sleep(this.retryPeriodMs, signal);
      if (signal.aborted) break;
      if (await this.tryAcquireOrRenew()) lastRenew = this.cfg.clock.monotonic();
      else if (this.cfg.clock.monotonic() - lastRenew >= this.renewDeadlineMs) break;
    }
    this.leading = false;
    leaderElectionMetrics()?.off(this.cfg.name);
    if (signal.aborted) await this.release();
    lost.abort();
    this.cfg.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    // Times written into the Lease are wall time; its expiry is judged on our own monotonic observation, as upstream's observedTime.
    const now = this.cfg.clock.now();
    const seen = this.cfg.clock.monotonic();
    const { namespace, name, identity } = this.cfg;
    let cur: Lease;
    try {
      cur = await this.leases.get(name, { namespace });
    } catch (err) {
      if (!isNotFoundError(err)) return this.failed(err);
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
          acquireTime: formatMicroTimestamp(now),
          renewTime: formatMicroTimestamp(now),
          leaseTransitions: 0,
        },
      };
      try {
        this.observe(await this.leases.create(lease, { namespace }), seen);
        return true;
      } catch (e) {
        if (!isAlreadyExistsError(e)) this.failed(e);
        return false;
      }
    }
    if (this.observed?.metadata?.resourceVersion !== cur.metadata?.resourceVersion) this.observe(cur, seen);
    const holder = cur.spec?.holderIdentity ?? '';
    const durMs = (cur.spec?.leaseDurationSeconds ?? 0) * 1000;
    // Like client-go, expiry is judged by when *we* last saw the record change, not by the holder's clock.
    if (holder !== '' && holder !== identity && this.observedAt + durMs > seen) return false;
    const mine = holder === identity;
    const next: Lease = {
      ...cur,
      spec: {
        ...cur.spec,
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
        renewTime: formatMicroTimestamp(now),
        acquireTime: mine ? cur.spec?.acquireTime : formatMicroTimestamp(now),
        leaseTransitions: (cur.spec?.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
    try {
      this.observe(await this.leases.update(next, { namespace }), seen);
      return true;
    } catch (err) {
      if (!isConflictError(err)) this.failed(err);
      return false;
    }
  }

  private async release(): Promise<void> {
    const { namespace, name, identity } = this.cfg;
    try {
      const cur = await this.leases.get(name, { namespace });
      if (cur.spec?.holderIdentity !== identity) return;
      // Like ReleaseOnCancel: an empty holder with a 1 s duration lets the next candidate take over at once.
      await this.leases.update(
        { ...cur, spec: { ...cur.spec, holderIdentity: '', leaseDurationSeconds: 1 } },
        { namespace },
      );
    } catch (err) {
      this.log.debug({ err: String(err) }, 'lease not released');
    }
  }

  private observe(l: Lease, seenAt: number): void {
    this.observed = l;
    this.observedAt = seenAt;
    const holder = l.spec?.holderIdentity ?? '';
    if (holder !== this.lastLeader) {
      this.lastLeader = holder;
      if (holder !== '') this.cfg.onNewLeader?.(holder);
    }
  }

  private failed(err: unknown): false {
    this.log.warn(
      { lease: `${this.cfg.namespace}/${this.cfg.name}`, err: String(err) },
      'error retrieving or updating lease',
    );
    return false;
  }

  private async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const t = this.cfg.clock.setTimeout(done, ms);
      function done(): void {
        t.cancel();
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
