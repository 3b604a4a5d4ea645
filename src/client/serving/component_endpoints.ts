/**
 * The endpoints every kscale component serves beside its work, like
 * component-base's healthz and legacyregistry handlers on a component's
 * secure port: /healthz, /livez, /readyz (with `?verbose`) and /metrics.
 * With `tls`, HTTPS, as upstream's secure port; with `auth`, every path but
 * the health checks needs a caller the API server authorizes (delegated_auth.ts).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { DelegatedAuth } from './delegated_auth.js';

/** What the endpoints report. */
export interface ComponentEndpointsOptions {
  /** host:port; port 0 picks a free one. */
  bindAddress: string;
  registry: Registry;
  /** Liveness (/healthz, /livez); default always live. */
  live?: () => boolean;
  /** Readiness (/readyz); default the same as live. */
  ready?: () => boolean;
  /** Serve HTTPS with this certificate; `clientCA` also asks for client certificates and verifies them against it. */
  tls?: { certPEM: string; keyPEM: string; clientCA?: string };
  /** Delegated authentication and authorization of every path but the always-allowed ones. */
  auth?: DelegatedAuth;
}

/** A listening endpoints server. */
export interface ComponentEndpoints {
  readonly url: string;
  close(): Promise<void>;
}

/** Splits host:port (an empty host means 127.0.0.1). */
export function splitHostPort(bind: string): { host: string; port: number } {
  const i = bind.lastIndexOf(':');
  if (i < 0) throw new Error(`bind address ${bind} is not host:port`);
  const port = Number(bind.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bind address ${bind}: bad port`);
  return { host: bind.slice(0, i).replace(/^\[|\]$/g, '') || '127.0.0.1', port };
}

/** Starts the endpoints; rejects when the address cannot be bound (EADDRINUSE names the address). */
export async function serveComponentEndpoints(o: ComponentEndpointsOptions): Promise<ComponentEndpoints> {
  const live = o.live ?? (() => true);
  const ready = o.ready ?? live;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (o.auth === undefined) {
      serve(req, res, url);
      return;
    }
    o.auth
      .decide(req, url.pathname)
      .then((d) => {
        if (d.code === 200) serve(req, res, url);
        else res.writeHead(d.code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${d.message}\n`);
      })
      .catch((err: unknown) =>
        res
          .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end(`Internal Server Error: the delegated check failed: ${(err as Error).message}\n`),
      );
  };
  const serve = (_req: http.IncomingMessage, res: http.ServerResponse, url: URL): void => {
    const check =
      url.pathname === '/readyz' ? ready : url.pathname === '/healthz' || url.pathname === '/livez' ? live : undefined;
    if (check !== undefined) {
      const ok = check();
      const name = url.pathname.slice(1);
      const body = url.searchParams.has('verbose')
        ? `[${ok ? '+' : '-'}]ping ${ok ? 'ok' : 'failed'}\n${name} check ${ok ? 'passed' : 'failed'}\n`
        : ok
          ? 'ok'
          : `${name} check failed`;
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
      return;
    }
    if (url.pathname === '/metrics') {
      o.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'Content-Type': o.registry.contentType }).end(text))
        .catch((err: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err)));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found\n');
  };
  const server =
    o.tls === undefined
      ? http.createServer(handler)
      : https.createServer(
          {
            cert: o.tls.certPEM,
            key: o.tls.keyPEM,
            // A client certificate is optional, as upstream's RequestClientCert: without one, a token or anonymous.
            ...(o.tls.clientCA === undefined
              ? {}
              : { ca: o.tls.clientCA, requestCert: true, rejectUnauthorized: false }),
          },
          handler,
        );
  const { host, port } = splitHostPort(o.bindAddress);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `${o.tls === undefined ? 'http' : 'https'}://${h}:${a.port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
