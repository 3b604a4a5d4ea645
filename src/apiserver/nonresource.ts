/**
 * Non-resource endpoints: /version, discovery (/api, /apis, legacy and
 * aggregated v2), health (/livez, /readyz, /healthz with a storage check) and
 * /metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from '../api/index.js';
import { routeNotFound, type ResourceInfo } from '../api/index.js';
import type { Storage } from '../storage/index.js';
import type { ApiServerMetrics } from './metrics.js';
import type { RequestInfo } from './request_info.js';
import { writeError, writeJSON } from './responsewriters.js';

/** The version kscale reports; kubectl's dispatcher picks its binary by major/minor. */
export const SERVER_VERSION = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0-kscale',
  gitCommit: 'kscale',
  gitTreeState: 'clean',
  buildDate: '2026-12-02T00:00:00Z',
  goVersion: 'node' + process.versions.node,
  compiler: 'tsc',
  platform: `${process.platform}/${process.arch}`,
};

function wantsAggregated(req: IncomingMessage): boolean {
  // Only v2 is served: kubectl 1.27/28 ask for v2beta1 alone ("v=v2beta1" must not
  // match), and get the legacy documents, like an apiserver without v2beta1.
  const params =
    (req.headers.accept ?? '')
      .split(',')[0]
      ?.split(';')
      .map((s) => s.trim()) ?? [];
  return (
    params.includes('as=APIGroupDiscoveryList') && params.includes('g=apidiscovery.k8s.io') && params.includes('v=v2')
  );
}

/** Serves discovery documents; returns false when the path is not a discovery path. */
export function serveDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  custom: readonly ResourceInfo[] = [],
): boolean {
  const p = info.path.replace(/\/+$/, '');
  if (p === '/api' || p === '/apis') {
    // Aggregated discovery only when asked for, echoing its exact content type (kubectl needs it).
    if (wantsAggregated(req))
      writeJSON(res, 200, aggregatedDiscovery(p === '/api', custom), AGGREGATED_DISCOVERY_CONTENT_TYPE);
    else writeJSON(res, 200, p === '/api' ? apiVersions() : apiGroupList(custom));
    return true;
  }
  const m = /^\/(api|apis)\/([^/]+)(?:\/([^/]+))?$/.exec(p);
  if (m === null) return false;
  if (m[1] === 'api') {
    const doc = apiResourceList('', m[2]);
    if (m[3] !== undefined || doc === undefined) return false;
    writeJSON(res, 200, doc);
    return true;
  }
  if (m[3] === undefined) {
    const g = apiGroup(m[2], custom);
    if (g === undefined) return false;
    writeJSON(res, 200, g);
    return true;
  }
  const doc = apiResourceList(m[2], m[3], custom);
  if (doc === undefined) return false;
  writeJSON(res, 200, doc);
  return true;
}

/**
 * Runs one health check, bounded like upstream's --etcd-healthcheck-timeout (2 s): an unreachable
 * etcd fails the check (a thrown error is its reason), never hangs it or the endpoint.
 */
async function bounded(check: () => Promise<string | null>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('no answer within 2s'), 2_000);
  });
  try {
    return await Promise.race([check(), timeout]);
  } catch (err) {
    return (err as Error).message;
  } finally {
    clearTimeout(timer);
  }
}

/** /livez, /readyz and /healthz (with ?verbose), checking storage and its alarms. */
export async function serveHealth(
  res: ServerResponse,
  info: RequestInfo,
  storage: Storage,
  ready: () => boolean,
): Promise<boolean> {
  const p = info.path.replace(/\/+$/, '');
  const kinds = ['/livez', '/readyz', '/healthz'];
  const base = kinds.find((k) => p === k || p.startsWith(k + '/'));
  if (base === undefined) return false;
  const checks: [string, () => Promise<string | null>][] = [
    ['ping', async () => null],
    ['log', async () => null],
    [
      'etcd',
      async () => {
        try {
          await storage.currentRevision();
          // Reads may still work while every write fails (the writer thread died): that is not healthy either.
          return (await storage.status()).writeFailure ?? null;
        } catch (err) {
          return (err as Error).message;
        }
      },
    ],
    [
      'etcd-alarms',
      async () => {
        const st = await storage.status();
        return st.alarms.length === 0 ? null : `alarms: ${st.alarms.join(',')}`;
      },
    ],
  ];
  if (base === '/readyz')
    checks.push(['poststarthook/kscale-bootstrap', async () => (ready() ? null : 'not finished')]);
  const only = p.slice(base.length + 1);
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    if (only !== '' && only !== name) continue;
    const failure = await bounded(check);
    if (failure !== null) ok = false;
    // Upstream withholds the reason from the body; an operator of a store that refuses writes needs it here.
    lines.push(failure === null ? `[+]${name} ok` : `[-]${name} failed: ${failure.replace(/\s+/g, ' ')}`);
  }
  if (only !== '' && lines.length === 0) return false;
  const verbose = info.query.has('verbose') || !ok;
  const body = verbose ? `${lines.join('\n')}\n${base.slice(1)} check ${ok ? 'passed' : 'failed'}\n` : 'ok';
  res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
  return true;
}

/** /version and /metrics. */
export async function serveMisc(
  res: ServerResponse,
  info: RequestInfo,
  metrics: ApiServerMetrics,
  storage: Storage,
): Promise<boolean> {
  const p = info.path.replace(/\/+$/, '');
  if (p === '/version') {
    writeJSON(res, 200, SERVER_VERSION);
    return true;
  }
  if (p === '/metrics') {
    const st = await storage.status().catch(() => null);
    if (st !== null) {
      metrics.storageSize.set({ storage_cluster_id: 'default' }, st.dbSizeBytes);
      metrics.storageAlarm.set({ alarm: 'NOSPACE' }, st.alarms.includes('NOSPACE') ? 1 : 0);
      if (st.writeQueue !== undefined) {
        metrics.storageWriteQueue.set(st.writeQueue.queued);
        metrics.storageWritesRejected.set(st.writeQueue.rejected);
      }
      if (st.lastDefragmentMs !== undefined) metrics.storageDefragment.set(st.lastDefragmentMs / 1000);
    }
    const text = await metrics.registry.metrics();
    // With its length a scraper can tell a whole exposition from one cut short (a reset stream ends like a whole one).
    res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    return true;
  }
  return false;
}

/** The generic 404 for paths nothing serves. */
export function serveNotFound(res: ServerResponse): void {
  writeError(res, routeNotFound());
}
