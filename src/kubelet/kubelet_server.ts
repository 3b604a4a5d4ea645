/**
 * The kubelet API a fleet serves, like upstream's kubelet server
 * (pkg/kubelet/server): GET /containerLogs/<ns>/<pod>/<container> with
 * follow, tailLines, sinceSeconds, sinceTime, timestamps, previous and
 * limitBytes. One http.Server takes the connections of one listener per hollow
 * node, each on the node's own loopback InternalIP, and the connection's local
 * address says which node it is for. Plain HTTP: the API server reaches it
 * without a kubelet client certificate (see docs/fleet.md).
 */
import http from 'node:http';
import net from 'node:net';
import type { Clock } from '../clock/index.js';
import {
  containerLog,
  formatLine,
  linesBetween,
  renderLog,
  type ContainerRunInfo,
  type LogOptions,
} from './container_logs.js';
import type { Pod } from '../api/index.js';

/** How the server finds a node's pod by the address a request came in on. */
export type PodLookup = (address: string, namespace: string, name: string) => Pod | undefined;

/** How often a followed log is checked for new lines. */
const FOLLOW_POLL_MS = 1000;

/** Serves the kubelet API of many hollow nodes from one http.Server. */
export class KubeletServer {
  private readonly http: http.Server;
  private readonly listeners: net.Server[] = [];

  constructor(
    private readonly lookup: PodLookup,
    private readonly clock: Clock,
  ) {
    this.http = http.createServer((req, res) => {
      this.serve(req, res).catch((err: unknown) => {
        if (!res.headersSent) writeError(res, 500, String(err));
        else res.destroy();
      });
    });
  }

  /** Listens on host:port (port 0: an ephemeral one); resolves to the port bound. */
  listen(host: string, port: number): Promise<number> {
    const l = net.createServer((sock) => this.http.emit('connection', sock));
    return new Promise((resolve, reject) => {
      l.once('error', reject);
      l.listen({ host, port }, () => {
        l.off('error', reject);
        this.listeners.push(l);
        resolve((l.address() as net.AddressInfo).port);
      });
    });
  }

  /** Closes every listener and open connection. */
  async close(): Promise<void> {
    this.http.closeAllConnections();
    await Promise.all(this.listeners.map((l) => new Promise<void>((r) => l.close(() => r()))));
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://kubelet');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (m === null) return writeError(res, 404, '404 page not found');
    if (req.method !== 'GET') return writeError(res, 405, 'method not allowed');
    const [ns, name, container] = [m[1]!, m[2]!, m[3]!].map(decodeURIComponent) as [string, string, string];
    const pod = this.lookup(req.socket.localAddress ?? '', ns, name);
    if (pod === undefined) return writeError(res, 404, `pod "${ns}/${name}" not found`);
    const q = url.searchParams;
    if (isTrue(q.get('previous')))
      // Hollow containers never restart, so there is never a previous instance, as upstream answers then.
      return writeError(res, 400, `previous terminated container "${container}" in pod "${name}" not found`);
    const info = runInfo(pod, container);
    if (typeof info === 'string') return writeError(res, 400, info);
    const opts = logOptions(q, this.clock.now());
    const now = this.clock.now();
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write(renderLog(containerLog(info, now), opts));
    if (!isTrue(q.get('follow')) || info.finishedAt !== undefined || opts.limitBytes !== undefined)
      return void res.end();
    await this.follow(req, res, info, now, opts.timestamps === true);
  }

  /** Writes new lines as the container "writes" them, until the client goes away. */
  private async follow(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    info: ContainerRunInfo,
    from: number,
    timestamps: boolean,
  ): Promise<void> {
    let closed = false;
    req.socket.once('close', () => (closed = true));
    for (let last = from; !closed && !res.destroyed;) {
      await this.clock.sleep(FOLLOW_POLL_MS);
      const now = this.clock.now();
      for (const l of linesBetween(info, last, now)) res.write(formatLine(l, timestamps));
      last = now;
    }
    res.end();
  }
}

/** The container's run as the pod's status says, or the upstream error text when it has not started. */
function runInfo(pod: Pod, container: string): ContainerRunInfo | string {
  const name = pod.metadata?.name ?? '';
  const spec = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === container);
  if (spec === undefined) return `container ${container} is not valid for pod ${name}`;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const state = statuses.find((s) => s.name === container)?.state;
  const base = { pod: name, container, image: spec.image ?? '' };
  if (state?.running !== undefined) return { ...base, startedAt: Date.parse(state.running.startedAt ?? '') || 0 };
  if (state?.terminated !== undefined) {
    const t = state.terminated;
    const startedAt = Date.parse(t.startedAt ?? '') || 0;
    return { ...base, startedAt, finishedAt: Date.parse(t.finishedAt ?? '') || startedAt, exitCode: t.exitCode };
  }
  const reason = state?.waiting?.reason ?? 'ContainerCreating';
  return `container "${container}" in pod "${name}" is waiting to start: ${reason}`;
}

/** The query as upstream's PodLogOptions; the API server has already validated it. */
function logOptions(q: URLSearchParams, now: number): LogOptions {
  const int = (k: string): number | undefined => (q.has(k) ? Number.parseInt(q.get(k)!, 10) : undefined);
  const sinceSeconds = int('sinceSeconds');
  const sinceTime = q.get('sinceTime');
  const sinceMs =
    sinceSeconds !== undefined ? now - sinceSeconds * 1000 : sinceTime !== null ? Date.parse(sinceTime) : undefined;
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  return {
    ...(sinceMs !== undefined && !Number.isNaN(sinceMs) ? { sinceMs } : {}),
    ...(tailLines !== undefined && tailLines >= 0 ? { tailLines } : {}),
    ...(limitBytes !== undefined && limitBytes > 0 ? { limitBytes } : {}),
    timestamps: isTrue(q.get('timestamps')),
  };
}

/** Upstream's boolean query parameters: present and not "false" or "0". */
function isTrue(v: string | null): boolean {
  return v !== null && v.toLowerCase() !== 'false' && v !== '0';
}

function writeError(res: http.ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(message);
}
