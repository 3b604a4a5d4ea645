/**
 * kube-proxy's health server (pkg/proxy/healthcheck's ProxyHealthServer) on
 * --healthz-bind-address: /healthz and /livez answer JSON with lastUpdated and
 * currentTime, 200 while the rules are fresh and 503 once a change has waited
 * longer than the health timeout (upstream: twice the sync period) without a
 * sync. Each change queues an update (QueuedUpdate) and each successful sync
 * clears it (Updated).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RealClock, type Clock } from '../clock/index.js';
import { splitHostPort } from '../client/index.js';

/** What /healthz and /livez report. */
export interface ProxyHealthStatus {
  healthy: boolean;
  /** Wall time (ms) of the last successful sync; 0 before the first. */
  lastUpdated: number;
  currentTime: number;
}

/** Tracks how stale the programmed rules are and serves it. */
export class ProxyHealthServer {
  private lastUpdatedWall = 0;
  /** Monotonic time of the oldest change not yet synced; undefined when none waits. */
  private oldestPendingQueued: number | undefined;
  private server: http.Server | undefined;

  constructor(
    private readonly healthTimeoutMs: number,
    private readonly clock: Clock = new RealClock(),
  ) {}

  /** A change is waiting for a sync (upstream's QueuedUpdate): the oldest such moment is kept. */
  queuedUpdate(): void {
    this.oldestPendingQueued ??= this.clock.monotonic();
  }

  /** A sync succeeded (upstream's Updated): nothing waits any more. */
  updated(): void {
    this.oldestPendingQueued = undefined;
    this.lastUpdatedWall = this.clock.now();
  }

  /** Healthy unless a change has waited longer than the health timeout. */
  status(): ProxyHealthStatus {
    const waited = this.oldestPendingQueued === undefined ? 0 : this.clock.monotonic() - this.oldestPendingQueued;
    const currentTime = this.clock.now();
    const healthy = waited <= this.healthTimeoutMs;
    // Like upstream: a healthy answer reports lastUpdated as now, as older releases did when every sync ran.
    return { healthy, lastUpdated: healthy ? currentTime : this.lastUpdatedWall, currentTime };
  }

  /** The JSON body of /healthz (with nodeEligible) or /livez, and its status code. */
  response(path: '/healthz' | '/livez'): { code: 200 | 503; body: string } {
    const s = this.status();
    const iso = (ms: number): string => new Date(ms).toISOString();
    const body: Record<string, unknown> = { lastUpdated: iso(s.lastUpdated), currentTime: iso(s.currentTime) };
    // kscale does not watch its own Node's deletion or taints, so the node is always eligible.
    if (path === '/healthz') body.nodeEligible = true;
    return { code: s.healthy ? 200 : 503, body: JSON.stringify(body) };
  }

  /** Listens on host:port (port 0 picks one); resolves with the base URL. */
  async serve(bind: string): Promise<string> {
    const { host, port } = splitHostPort(bind);
    const server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== '/healthz' && path !== '/livez') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
        return;
      }
      const r = this.response(path);
      res.writeHead(r.code, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' }).end(r.body);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const a = server.address() as AddressInfo;
    return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
