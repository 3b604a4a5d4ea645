/**
 * Service watchers for the controllers benchmark: plain HTTP watches of
 * Endpoints or EndpointSlices in all namespaces, as every node's kube-proxy
 * keeps one, counting the bytes each receives.
 */
import { request, type ClientRequest } from 'node:http';

/** A set of identical watchers. */
export interface Watchers {
  /** Bytes received by all watchers together. */
  bytes(): number;
  /** Watch events received by all watchers together. */
  events(): number;
  stop(): void;
}

/** Opens `n` watches of `path` (e.g. /api/v1/endpoints) from `resourceVersion`. */
export function startWatchers(base: string, path: string, resourceVersion: string, n: number): Watchers {
  let bytes = 0;
  let events = 0;
  const reqs: ClientRequest[] = [];
  const url = new URL(`${path}?watch=1&resourceVersion=${resourceVersion}&allowWatchBookmarks=false`, base);
  for (let i = 0; i < n; i++) {
    const req = request(url, { headers: { accept: 'application/json' }, agent: false }, (res) => {
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        for (const b of d) if (b === 10) events++;
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end();
    reqs.push(req);
  }
  return { bytes: () => bytes, events: () => events, stop: () => reqs.forEach((r) => r.destroy()) };
}
