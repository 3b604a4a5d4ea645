/**
 * The lab's API servers one by one, not through the load balancer: a client per server (its address and port from
 * the component's own flags), the LISTs each has served and the watches each holds, from its /metrics
 * (apiserver_request_total{verb="LIST"}, apiserver_longrunning_requests{verb="WATCH"}).
 */
import { loadKubeconfig, RESTClient } from '../../client/index.js';
import { scrape } from '../api_metrics.js';
import { parsePrometheus, sumOf } from '../prom.js';
import type { RunningComponent } from '../supervisor.js';

/** An API server of the lab and a client that talks to it alone. */
export interface ApiServerEndpoint {
  /** The component's name (server, server-1). */
  name: string;
  client: RESTClient;
}

/** Whether a component is one of the lab's API servers. */
export const isApiServer = (c: RunningComponent): boolean => /^server(-\d+)?$/.test(c.spec.name);

/** The last value of a flag: the lab appends overrides (HA address, chaos's fixed port) after the defaults. */
function lastFlag(args: readonly string[], name: string): string | undefined {
  const i = args.lastIndexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

/**
 * The URL of a server's secure port from its flags, or undefined when it was left to the kernel (port 0: only the
 * server knows it, and the lab reaches it through the kubeconfig).
 */
export function secureUrlOf(c: RunningComponent): string | undefined {
  const port = lastFlag(c.spec.args, '--secure-port');
  if (port === undefined || port === '0') return undefined;
  return `https://${lastFlag(c.spec.args, '--bind-address') ?? '127.0.0.1'}:${port}`;
}

/**
 * A client per API server with a fixed secure port, each with `kubeconfig`'s credentials and CA (every server's
 * serving certificate names its bind address); close them with closeEndpoints.
 */
export function apiServerEndpoints(components: readonly RunningComponent[], kubeconfig: string): ApiServerEndpoint[] {
  const out: ApiServerEndpoint[] = [];
  for (const c of components.filter(isApiServer)) {
    const host = secureUrlOf(c);
    if (host === undefined) continue;
    const client = new RESTClient({ ...loadKubeconfig({ path: kubeconfig }), host, qps: 0, burst: 1 });
    out.push({ name: c.spec.name, client });
  }
  return out;
}

/** Closes the endpoints' connections. */
export function closeEndpoints(endpoints: readonly ApiServerEndpoint[]): void {
  for (const e of endpoints) e.client.close();
}

/** What one server's /metrics says about LISTs and watches. */
export interface ListWatchCounts {
  /** LIST requests served since the server started (every code). */
  lists: number;
  /** Watch requests open now. */
  watches: number;
}

/** The LIST and watch counts in one /metrics text. */
export function listWatchCounts(metrics: string): ListWatchCounts {
  const samples = parsePrometheus(metrics);
  return {
    lists: sumOf(samples, 'apiserver_request_total', (l) => l.verb === 'LIST'),
    watches: sumOf(samples, 'apiserver_longrunning_requests', (l) => l.verb === 'WATCH'),
  };
}

/** Each endpoint's counts by name; a server that does not answer is left out. */
export async function scrapeListWatch(endpoints: readonly ApiServerEndpoint[]): Promise<Map<string, ListWatchCounts>> {
  const out = new Map<string, ListWatchCounts>();
  await Promise.all(
    endpoints.map(async (e) => {
      const text = await scrape(e.client, AbortSignal.timeout(10_000)).catch(() => undefined);
      if (text !== undefined) out.set(e.name, listWatchCounts(text));
    }),
  );
  return out;
}

/**
 * LISTs served between two scrapes, summed over the servers. A server restarted in between (`restarted`, or any
 * whose counter went down) started again from 0, so all it counts now is in the window; one missing from either
 * scrape (and not restarted) is left out.
 */
export function listsBetween(
  before: ReadonlyMap<string, ListWatchCounts>,
  after: ReadonlyMap<string, ListWatchCounts>,
  restarted?: string,
): number {
  let n = 0;
  for (const [name, a] of after) {
    if (name !== restarted && !before.has(name)) continue;
    const b = name === restarted ? 0 : before.get(name)!.lists;
    n += a.lists >= b ? a.lists - b : a.lists;
  }
  return n;
}
