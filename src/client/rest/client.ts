/**
 * The REST client, like client-go's rest.RESTClient: keep-alive HTTP(S) to one
 * API server, a client-side QPS/burst limiter in front of every request
 * (retries included), and retries that honour Retry-After. A request is
 * retried after it may have reached the server only when it is idempotent:
 * writes are retried on 429, on 5xx with Retry-After (the server says it did
 * not act) and on connection-refused, never on a reset mid-request.
 */
import type http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { RealClock, type Clock } from '../../clock/index.js';
import { Backoff } from '../flowcontrol/backoff.js';
import { sleepAbortable, TokenBucket, type RateLimiter } from '../flowcontrol/token_bucket.js';
import type { RestConfig } from './config.js';
import { isConnectionLost, isConnectionRefused, statusErrorFromResponse } from './errors.js';
import { abortError, Http2Transport } from './http2.js';
import { Http1Transport, newAgent, type ResponseStream, type Transport } from './transport.js';
import type { KubeObject } from '../../api/index.js';
import { ResourceClient, type GroupVersionResource } from './resource.js';

/** An HTTP verb the API speaks. */
export type Verb = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Query parameters; undefined values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** One request to the API server. */
export interface RequestOptions {
  method: Verb;
  /** Absolute path, e.g. /api/v1/namespaces/default/pods. */
  path: string;
  query?: Query;
  /** JSON-encoded unless a Buffer or string. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
  /** The signal covers only the wait for the response head (a watch its reader ends by destroying it). */
  signalUntilResponse?: boolean;
  /** Whether a retry after the server may have acted is safe; defaults to true for GET and HEAD only. */
  idempotent?: boolean;
}

/** A buffered response. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Knobs of the REST client; time and randomness are injected. */
export interface RESTClientOptions {
  clock?: Clock;
  random?: () => number;
  /** Overrides the token bucket built from config.qps/burst. */
  rateLimiter?: RateLimiter;
  /** Retries per request, like client-go's maxRetries (10). */
  maxRetries?: number;
  /** Share one HTTP/1.1 agent between clients (e.g. a fleet's pool); the caller closes it. */
  agent?: http.Agent;
  /** Share one transport between clients (e.g. one HTTP/2 session per hollow node); the caller closes it. */
  transport?: Transport;
}

/**
 * Whether a client speaks HTTP/2 to this config's server: over TLS unless config.disableHTTP2 or the
 * DISABLE_HTTP2 environment variable says not, as client-go decides (plain http stays HTTP/1.1).
 */
export function useHTTP2(config: RestConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  return config.host.startsWith('https:') && config.disableHTTP2 !== true && (env.DISABLE_HTTP2 ?? '') === '';
}

/** The transport a client builds for itself: one HTTP/2 session when useHTTP2, else a keep-alive agent. */
export function newTransport(config: RestConfig, opts: { clock?: Clock; random?: () => number } = {}): Transport {
  return useHTTP2(config) ? new Http2Transport(config, opts) : new Http1Transport(newAgent(config), true);
}

/** A keep-alive REST client for one API server. */
export class RESTClient {
  readonly clock: Clock;
  readonly rateLimiter: RateLimiter;
  private readonly random: () => number;
  private readonly maxRetries: number;
  private transport: Transport;
  private ownTransport: boolean;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  /** Counters for tests and metrics: requests sent (attempts), retries, and 429 answers. */
  readonly stats = { requests: 0, retries: 0, tooManyRequests: 0 };

  constructor(
    readonly config: RestConfig,
    opts: RESTClientOptions = {},
  ) {
    this.clock = opts.clock ?? new RealClock();
    this.random = opts.random ?? Math.random;
    this.maxRetries = opts.maxRetries ?? 10;
    this.rateLimiter = opts.rateLimiter ?? new TokenBucket(config.qps ?? 0, config.burst ?? 1, this.clock);
    this.base = new URL(config.host);
    this.ownTransport = opts.agent === undefined && opts.transport === undefined;
    this.transport =
      opts.transport ??
      (opts.agent !== undefined
        ? new Http1Transport(opts.agent, false)
        : newTransport(config, { clock: this.clock, random: this.random }));
    this.headers = { 'User-Agent': config.userAgent ?? 'kscale-client/v0.1.0' };
    if (config.bearerToken) this.headers.Authorization = `Bearer ${config.bearerToken}`;
    else if (config.username !== undefined)
      this.headers.Authorization = `Basic ${Buffer.from(`${config.username}:${config.password ?? ''}`).toString('base64')}`;
  }

  /** Replaces the bearer token of every later request (a renewed ServiceAccount token). */
  setBearerToken(token: string): void {
    this.headers.Authorization = `Bearer ${token}`;
  }

  /** Sends a request and decodes the JSON body; failures throw StatusError. */
  async request<T>(opts: RequestOptions): Promise<T> {
    const res = await this.requestRaw(opts);
    if (res.body.length === 0) return undefined as T;
    return JSON.parse(res.body.toString()) as T;
  }

  /** Sends a request and returns the buffered body of a 2xx response; failures throw StatusError. */
  async requestRaw(opts: RequestOptions): Promise<RawResponse> {
    const res = await this.send(opts);
    const body = await readBody(res, opts);
    if (res.statusCode! >= 300) throw statusErrorFromResponse(res.statusCode!, body, retryAfterSeconds(res.headers));
    return { status: res.statusCode!, headers: res.headers, body };
  }

  /** Opens a streaming response (a watch); resolves on a 200 with the body unread, else throws StatusError. */
  async stream(opts: RequestOptions): Promise<ResponseStream> {
    const res = await this.send(opts, true);
    if (res.statusCode === 200) return res;
    const body = await readBody(res, opts);
    throw statusErrorFromResponse(res.statusCode!, body, retryAfterSeconds(res.headers));
  }

  /** A typed client for one resource over this connection. */
  resource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
    return new ResourceClient<T>(this, gvr);
  }

  /** What this client speaks: h2 or http/1.1 (h2 until a server's ALPN answer says otherwise). */
  get protocol(): 'http/1.1' | 'h2' {
    return this.transport.protocol;
  }

  /**
   * Sends later requests over `agent` (e.g. one carrying a rotated client certificate); the caller owns it.
   * Like client-go after a rotation, whoever owned the old agent closes it so open watches reconnect.
   */
  useAgent(agent: http.Agent): void {
    this.useTransport(new Http1Transport(agent, false));
  }

  /** Sends later requests over `transport` (e.g. a node's HTTP/2 session with its new certificate); the caller owns it. */
  useTransport(transport: Transport): void {
    if (this.ownTransport) this.transport.close();
    this.transport = transport;
    this.ownTransport = false;
  }

  /** Closes the connections of a transport this client owns. */
  close(): void {
    if (this.ownTransport) this.transport.close();
  }

  /** The retry loop around one request; returns the first response not worth retrying. */
  private async send(opts: RequestOptions, streaming = false): Promise<ResponseStream> {
    const idempotent = opts.idempotent ?? (opts.method === 'GET' || opts.method === 'HEAD');
    const backoff = new Backoff({ initialMs: 100, maxMs: 10_000, jitter: 1, clock: this.clock, random: this.random });
    for (let attempt = 0; ; attempt++) {
      await this.rateLimiter.wait(opts.signal);
      const last = attempt >= this.maxRetries;
      let res: ResponseStream;
      if (attempt > 0) this.stats.retries++;
      this.stats.requests++;
      try {
        res = await this.once(opts, streaming);
      } catch (err) {
        if (opts.signal?.aborted === true || last) throw err;
        if (!(isConnectionRefused(err) || (idempotent && isConnectionLost(err)))) throw err;
        await sleepAbortable(this.clock, backoff.next(), opts.signal);
        continue;
      }
      const code = res.statusCode!;
      if (code === 429) this.stats.tooManyRequests++;
      const after = retryAfterSeconds(res.headers);
      // 429 and 5xx-with-Retry-After mean the server did not act on the request, so any verb may retry.
      const retryAfter = code === 429 || (code >= 500 && after !== undefined);
      if (last || !(retryAfter || (code >= 500 && idempotent))) return res;
      res.resume();
      // Up to 20% on top of Retry-After (client-go adds none) so clients rejected together do not all return together.
      const delay = retryAfter ? Math.max(0, after ?? 1) * 1000 * (1 + 0.2 * this.random()) : backoff.next();
      await sleepAbortable(this.clock, delay, opts.signal);
    }
  }

  private async once(opts: RequestOptions, streaming: boolean): Promise<ResponseStream> {
    const creds = this.config.credentials;
    const url = new URL(opts.path, this.base);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    let payload: Buffer | string | undefined;
    const headers: Record<string, string> = { ...this.headers, Accept: opts.accept ?? 'application/json' };
    if (creds !== undefined) headers.Authorization = await creds.authorization();
    if (opts.body !== undefined) {
      // A string body stays a string: the socket writes it as UTF-8 with no Buffer, where
      // Buffer.from pinned an 8 KB pool slab (external memory, which starts V8's marking
      // every 64 MB) for as long as the request waited in the server's queues.
      payload = Buffer.isBuffer(opts.body)
        ? opts.body
        : typeof opts.body === 'string'
          ? opts.body
          : JSON.stringify(opts.body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length);
    }
    const res = await this.transport.request({
      method: opts.method,
      url,
      headers,
      body: payload,
      signal: opts.signal,
      signalUntilResponse: opts.signalUntilResponse === true,
      timeoutMs: streaming ? 0 : (this.config.timeoutMs ?? 0),
    });
    // Like client-go's exec authenticator: a 401 means the cached credential went stale.
    if (res.statusCode === 401) creds?.invalidate();
    return res;
  }
}

/** Retry-After in seconds (delta-seconds form only, as the apiserver sends), or undefined. */
export function retryAfterSeconds(headers: IncomingHttpHeaders): number | undefined {
  const v = headers['retry-after'];
  if (v === undefined) return undefined;
  const n = Number(Array.isArray(v) ? v[0] : v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The whole body of a response. node:http2 ends a stream's body when the stream is reset (our own CANCEL on an
 * aborted signal, the server's RST_STREAM) just as when it ends, so a body cut short is told by its signal and
 * by a Content-Length it falls short of, and fails as a lost connection: it is never handed on as the response.
 */
function readBody(res: ResponseStream, opts: Pick<RequestOptions, 'method' | 'signal'>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const lost = (why = 'response aborted'): void => reject(Object.assign(new Error(why), { code: 'ECONNRESET' }));
    res.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
    });
    res.on('end', () => {
      if (opts.signal?.aborted === true) return reject(abortError());
      const declared = res.headers['content-length'];
      const bodyless = opts.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
      if (declared !== undefined && !bodyless && Number(declared) !== size)
        return lost(`response body ended after ${size} of ${declared} bytes`);
      // Most bodies arrive in one chunk: hand it over instead of copying it (Buffer.concat always allocates).
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    res.on('error', reject);
    res.on('aborted', lost);
    // An HTTP/2 stream reset mid-body closes without 'aborted'.
    res.on('close', () => {
      if (!res.complete) lost();
    });
  });
}
