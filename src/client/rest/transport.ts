/**
 * How a RESTClient's requests reach the server, like the http.RoundTripper
 * under client-go's rest client: an HTTP/1.1 keep-alive agent (plain http,
 * a pool shared by a fleet, or a server that does not offer h2) or one
 * HTTP/2 session (http2.ts). Both hand back the response head with its body
 * still streaming, so watches and buffered requests share one path.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import type { RestConfig } from './config.js';

/** A response whose head has arrived and whose body is still to be read. */
export interface ResponseStream extends Readable {
  readonly statusCode?: number | undefined;
  readonly headers: IncomingHttpHeaders;
  /** True once the whole body arrived; a 'close' before that is a lost connection. */
  readonly complete: boolean;
}

/** One request as the transport sends it. */
export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** A string is written as UTF-8 without a Buffer of its own (so no ArrayBuffer outlives a queued request). */
  body?: Buffer | string | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The signal covers only the wait for the response head, and the HTTP/2 transport lets go of it then (node's
   * HTTP/1.1 client keeps it): for a watch its reader ends by destroying the response.
   */
  signalUntilResponse?: boolean;
  /** Fails the request with ETIMEDOUT when no response has finished in this many ms (0: none). */
  timeoutMs: number;
}

/** Sends requests to one server; `close` ends its connections (open watches end and re-watch). */
export interface Transport {
  /** http/1.1 or h2: what the transport speaks (before its first connection, what it will try). */
  readonly protocol: 'http/1.1' | 'h2';
  request(req: TransportRequest): Promise<ResponseStream>;
  close(): void;
}

/** The TLS material of a config, as Node's TLS options. */
export function tlsOptions(config: RestConfig): https.AgentOptions {
  return {
    ...(config.ca ? { ca: config.ca } : {}),
    ...(config.cert ? { cert: config.cert } : {}),
    ...(config.key ? { key: config.key } : {}),
    ...(config.tlsServerName ? { servername: config.tlsServerName } : {}),
    rejectUnauthorized: config.insecureSkipTLSVerify !== true,
  };
}

/** A keep-alive HTTP/1.1 agent for the config's server, with its TLS material over https. */
export function newAgent(config: RestConfig, pool: http.AgentOptions = { keepAlive: true }): http.Agent {
  if (!config.host.startsWith('https:')) return new http.Agent(pool);
  return new https.Agent({ ...pool, ...tlsOptions(config) });
}

/** HTTP/1.1 over an agent, like net/http's Transport with HTTP/2 off. */
export class Http1Transport implements Transport {
  readonly protocol = 'http/1.1';
  private readonly module: typeof http | typeof https;

  /** `owned`: close() destroys the agent; a shared agent (a fleet's pool) is closed by its owner. */
  constructor(
    readonly agent: http.Agent,
    private readonly owned: boolean,
  ) {
    this.module = agent instanceof https.Agent ? https : http;
  }

  request(r: TransportRequest): Promise<ResponseStream> {
    return new Promise((resolve, reject) => {
      const req = this.module.request(
        r.url,
        { method: r.method, headers: r.headers, agent: this.agent, ...(r.signal ? { signal: r.signal } : {}) },
        resolve,
      );
      req.on('error', reject);
      if (r.timeoutMs > 0)
        req.setTimeout(r.timeoutMs, () =>
          req.destroy(Object.assign(new Error(`request timed out after ${r.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        );
      req.end(r.body);
    });
  }

  close(): void {
    if (this.owned) this.agent.destroy();
  }
}
