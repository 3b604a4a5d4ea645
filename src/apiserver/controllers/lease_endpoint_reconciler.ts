/**
 * The `kubernetes` Service's endpoints, like upstream's lease endpoint
 * reconciler (pkg/controlplane/reconcilers/lease.go,
 * --endpoint-reconciler-type=lease): every API server keeps a TTL'd key
 * `/masterleases/<advertise-address>` in storage, renewed every interval, and
 * writes the live keys' addresses into the Endpoints and EndpointSlice
 * `default/kubernetes`. A server that dies stops renewing, its key expires
 * after the TTL, and the next pass of any other server drops its address. A
 * server shutting down gracefully removes its own key at once.
 */
import type { Clock, Timer } from '../../clock/index.js';
import { isStorageError, type Storage } from '../../storage/index.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';

/** The storage prefix of the per-server leases (upstream's). */
export const MASTER_LEASES_PREFIX = '/masterleases/';

/** Options of the reconciler. */
export interface LeaseEndpointReconcilerOptions {
  storage: Storage;
  endpoints: GenericStore;
  endpointSlices: GenericStore;
  clock: Clock;
  /** This server's --advertise-address (IPv4). */
  advertiseAddress: string;
  /** The port clients reach this server on (the secure port when serving TLS). */
  port: number;
  /** How long a lease lives without renewal (upstream's 15 s). */
  ttlSeconds?: number;
  /** How often the lease is renewed and the endpoints reconciled (upstream's 10 s). */
  intervalMs?: number;
}

/** Keeps this server's lease and the `kubernetes` endpoints; see the module comment. */
export class LeaseEndpointReconciler {
  private timer: Timer | undefined;
  private stopped = false;

  constructor(private readonly opts: LeaseEndpointReconcilerOptions) {}

  /** Renews the lease and reconciles now, then every interval. */
  async start(): Promise<void> {
    // The loop runs whatever the first pass does: a store that refuses writes (NOSPACE) at start-up must not keep
    // the server from serving reads, and the next pass retries, as upstream's reconciler loop does.
    this.timer = this.opts.clock.setInterval(
      () => void this.runOnce().catch(() => undefined),
      this.opts.intervalMs ?? 10_000,
    );
    await this.runOnce();
  }

  /** One pass: renew this server's lease, then write every live lease's address. */
  async runOnce(): Promise<string[]> {
    if (this.stopped) return [];
    const { storage, advertiseAddress: ip } = this.opts;
    const lease = Buffer.from(
      JSON.stringify({
        kind: 'Endpoints',
        apiVersion: 'v1',
        metadata: { name: ip },
        subsets: [{ addresses: [{ ip }] }],
      }),
    );
    await storage.guaranteedUpdate(`${MASTER_LEASES_PREFIX}${ip}`, () => ({ value: lease, ttlSeconds: this.ttl }), {
      ignoreNotFound: true,
    });
    return this.reconcile();
  }

  /** Stops renewing and removes this server's lease and address (a graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    try {
      await this.opts.storage.delete(`${MASTER_LEASES_PREFIX}${this.opts.advertiseAddress}`);
    } catch (err) {
      if (!isStorageError(err, 'KeyNotFound')) throw err;
    }
    await this.reconcile();
  }

  private get ttl(): number {
    return this.opts.ttlSeconds ?? 15;
  }

  /** Writes the live leases' addresses into the Endpoints and EndpointSlice, when they differ. */
  private async reconcile(): Promise<string[]> {
    const listed = await this.opts.storage.list(MASTER_LEASES_PREFIX);
    const ips = listed.items.map((kv) => kv.key.slice(MASTER_LEASES_PREFIX.length)).sort(compareIPs);
    const port = this.opts.port;
    const subsets =
      ips.length === 0
        ? []
        : [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }];
    await this.write(this.opts.endpoints, (cur) => ({
      ...(cur ?? { kind: 'Endpoints', apiVersion: 'v1' }),
      metadata: { ...((cur?.metadata as Obj | undefined) ?? {}), name: 'kubernetes', namespace: 'default' },
      subsets,
    }));
    await this.write(this.opts.endpointSlices, (cur) => ({
      ...(cur ?? { kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1' }),
      metadata: {
        ...((cur?.metadata as Obj | undefined) ?? {}),
        name: 'kubernetes',
        namespace: 'default',
        labels: { 'kubernetes.io/service-name': 'kubernetes' },
      },
      addressType: 'IPv4',
      endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    }));
    return ips;
  }

  private async write(store: GenericStore, desired: (cur: Obj | null) => Obj): Promise<void> {
    const now = this.opts.clock.now();
    await store.update(
      'default',
      'kubernetes',
      (cur) => {
        const next = desired(cur);
        // Nothing to write when the addresses and ports already match (the usual pass).
        if (cur !== null && same(cur, next)) return cur;
        return next;
      },
      { dryRun: false, now, subresource: '', forceAllowCreate: true },
    );
  }
}

function same(a: Obj, b: Obj): boolean {
  const pick = (o: Obj): string => JSON.stringify([o.subsets, o.endpoints, o.ports, o.addressType]);
  return pick(a) === pick(b);
}

function compareIPs(a: string, b: string): number {
  const n = (ip: string): number => ip.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
  return n(a) - n(b);
}
