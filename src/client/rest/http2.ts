/**
 * HTTP/2 for the REST client, as client-go gets from golang.org/x/net/http2
 * over TLS: one session carries every request and watch of a client as
 * streams. ALPN decides: a server that answers http/1.1 gets the HTTP/1.1
 * fallback for the transport's life. A lost session (GOAWAY, reset, a ping
 * unanswered for pingTimeoutMs, as client-go's ReadIdleTimeout/PingTimeout)
 * fails its streams with connection errors the client retries when that is
 * safe, and watches end so informers re-watch from their last
 * resourceVersion. Streams beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS
 * wait in FIFO order. Redials after a failed dial back off with jitter.
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { RealClock, type Clock, type Timer } from '../../clock/index.js';
import { Backoff } from '../flowcontrol/backoff.js';
import { sleepAbortable } from '../flowcontrol/token_bucket.js';
import type { RestConfig } from './config.js';
import { openStream } from './http2_request.js';
import { Http1Transport, tlsOptions, type ResponseStream, type Transport, type TransportRequest } from './transport.js';

/**
 * The receive windows client-go's HTTP/2 transport advertises (golang.org/x/net/http2's transportDefaultStreamFlow
 * and transportDefaultConnFlow). With HTTP/2's default 64 KiB, a body or a watch moved one window per round trip
 * through both event loops: a 10 MB LIST took ~160 of them, seconds on a loaded machine. A stream its reader
 * pauses still stops the sender at its window, so a slow reader buffers at most this much.
 */
export const STREAM_WINDOW_BYTES = 4 << 20;
export const CONNECTION_WINDOW_BYTES = 1 << 30;

/** Knobs of an HTTP/2 transport; time and randomness are injected. */
export interface Http2TransportOptions {
  clock?: Clock;
  random?: () => number;
  /** Ping the server this often (client-go's ReadIdleTimeout, 30 s); 0 disables. */
  pingIntervalMs?: number;
  /** Drop the session when a ping is not answered within this (client-go's PingTimeout, 15 s). */
  pingTimeoutMs?: number;
}

/** Counters for tests and metrics. */
export interface Http2TransportStats {
  /** Sessions opened (the first and every reconnect). */
  sessions: number;
  /** Sessions ended by the server's GOAWAY. */
  goaways: number;
  /** Sessions dropped because a ping went unanswered. */
  pingTimeouts: number;
  /** Streams that waited for a free slot under the server's concurrent-stream limit. */
  queued: number;
}

/** An error a stream fails with when its session is lost; `code` is what errors.ts classifies. */
function connectionError(message: string, code: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

/** What a request aborted through its signal fails with, named as the DOM's AbortError. */
export function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** One live session with its stream count. */
interface Lane {
  session: ClientHttp2Session;
  active: number;
  ping: Timer | undefined;
}

/** HTTP/2 to one https server, one session at a time, HTTP/1.1 when ALPN says so. */
export class Http2Transport implements Transport {
  readonly stats: Http2TransportStats = { sessions: 0, goaways: 0, pingTimeouts: 0, queued: 0 };
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly origin: URL;
  private readonly authority: string;
  private lane: Lane | undefined;
  private dialing: Promise<Lane | Http1Transport> | undefined;
  private fallback: Http1Transport | undefined;
  private readonly waiters: (() => void)[] = [];
  private readonly backoff: Backoff;
  private redialAt = 0;
  private closed = false;

  constructor(
    private readonly config: RestConfig,
    private readonly o: Http2TransportOptions = {},
  ) {
    this.clock = o.clock ?? new RealClock();
    this.random = o.random ?? Math.random;
    this.origin = new URL(config.host);
    this.authority = this.origin.host;
    this.backoff = new Backoff({ initialMs: 100, maxMs: 5_000, jitter: 1, clock: this.clock, random: this.random });
  }

  /** h2 until a server answers ALPN with http/1.1. */
  get protocol(): 'http/1.1' | 'h2' {
    return this.fallback === undefined ? 'h2' : 'http/1.1';
  }

  /** Streams open on the current session. */
  get activeStreams(): number {
    return this.lane?.active ?? 0;
  }

  async request(r: TransportRequest): Promise<ResponseStream> {
    if (this.closed) throw connectionError('transport closed', 'ECONNRESET');
    const conn = await this.connection(r.signal);
    if (conn instanceof Http1Transport) return conn.request(r);
    return this.send(await this.slot(r.signal), r);
  }

  /** Ends the session (its streams fail, watches end) and the HTTP/1.1 fallback; later requests fail. */
  close(): void {
    this.closed = true;
    if (this.lane !== undefined) this.drop(this.lane, connectionError('transport closed', 'ECONNRESET'));
    this.fallback?.close();
    for (const w of this.waiters.splice(0)) w();
  }

  /** The current session, dialling one when there is none. */
  private async connection(signal?: AbortSignal): Promise<Lane | Http1Transport> {
    if (this.fallback !== undefined) return this.fallback;
    if (this.lane !== undefined) return this.lane;
    this.dialing ??= this.dial(signal).finally(() => (this.dialing = undefined));
    return this.dialing;
  }

  private async dial(signal?: AbortSignal): Promise<Lane | Http1Transport> {
    const wait = this.redialAt - this.clock.monotonic();
    if (wait > 0) await sleepAbortable(this.clock, wait, signal);
    let socket: tls.TLSSocket;
    try {
      socket = await this.connectTLS();
    } catch (err) {
      // Thousands of clients losing one server redial spread out, not in lock-step.
      this.redialAt = this.clock.monotonic() + this.backoff.next();
      throw err;
    }
    if (this.closed) {
      socket.destroy();
      throw connectionError('transport closed', 'ECONNRESET');
    }
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      this.fallback = new Http1Transport(new https.Agent({ keepAlive: true, ...tlsOptions(this.config) }), true);
      return this.fallback;
    }
    const session = http2.connect(this.origin, {
      createConnection: () => socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW_BYTES },
    });
    // Node leaves the connection's window at HTTP/2's 64 KiB, which every stream shares.
    session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
    const lane: Lane = { session, active: 0, ping: undefined };
    this.stats.sessions++;
    session.on('error', (err) => this.drop(lane, connectionError(`http2 session: ${err.message}`, 'ECONNRESET', err)));
    session.on('goaway', () => {
      this.stats.goaways++;
      // Streams the server accepted finish on this session; new ones go to a new session.
      this.retire(lane);
    });
    session.on('close', () => this.drop(lane, connectionError('http2 session closed', 'ECONNRESET')));
    session.on('remoteSettings', () => this.wake());
    session.unref();
    this.lane = lane;
    return lane;
  }

  private connectTLS(): Promise<tls.TLSSocket> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host: this.origin.hostname.replace(/^\[|\]$/g, ''),
        port: Number(this.origin.port || 443),
        ...tlsOptions(this.config),
        ...(this.config.tlsServerName === undefined && !/^[\d.:[\]]+$/.test(this.origin.hostname)
          ? { servername: this.origin.hostname }
          : {}),
        ALPNProtocols: ['h2', 'http/1.1'],
      });
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  }

  /** A slot on the current session under the server's concurrent-stream limit, waiting FIFO for one. */
  private async slot(signal?: AbortSignal): Promise<Lane> {
    let queued = false;
    for (;;) {
      if (this.closed) throw connectionError('transport closed', 'ECONNRESET');
      const lane = await this.connection(signal);
      if (lane instanceof Http1Transport) throw connectionError('the server stopped offering h2', 'ECONNRESET');
      const limit = lane.session.remoteSettings.maxConcurrentStreams ?? Infinity;
      if (lane.active < limit) {
        lane.active++;
        if (lane.active === 1) {
          lane.session.ref();
          this.startPing(lane);
        }
        return lane;
      }
      if (!queued) this.stats.queued++;
      queued = true;
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private release(lane: Lane): void {
    lane.active--;
    if (lane.active > 0) return this.wake();
    lane.ping?.cancel();
    lane.ping = undefined;
    if (!lane.session.destroyed) lane.session.unref();
    this.wake();
  }

  private wake(): void {
    const w = this.waiters.shift();
    w?.();
  }

  private send(lane: Lane, r: TransportRequest): Promise<ResponseStream> {
    return new Promise((resolve, reject) => {
      let stream: ClientHttp2Stream;
      const headers: http2.OutgoingHttpHeaders = {
        ':method': r.method,
        ':path': `${r.url.pathname}${r.url.search}`,
        // The transport's one origin string: the URL's host is a slice that would keep the whole URL alive per stream.
        ':authority': this.authority,
      };
      for (const [k, v] of Object.entries(r.headers)) headers[k.toLowerCase()] = v;
      if (r.signal?.aborted === true) {
        this.release(lane);
        reject(abortError());
        return;
      }
      try {
        // The signal is handled here, not by node:http2: its aborter destroys the stream with an AbortError, and
        // destroying a stream with an error formats the error's stack (~8% of a hollow fleet's CPU went to
        // that and to the per-request abort listener, with a node's reference watches stopped as pods go).
        stream = openStream(lane.session, headers, r.body === undefined);
      } catch (err) {
        // The session is closing (GOAWAY) or gone: the request never left, so any verb may retry.
        this.release(lane);
        this.retire(lane);
        reject(connectionError(`http2: ${(err as Error).message}`, 'ERR_HTTP2_REFUSED_STREAM', err));
        return;
      }
      if (r.timeoutMs > 0) {
        const ms = r.timeoutMs;
        stream.setTimeout(ms, () => stream.destroy(connectionError(`request timed out after ${ms} ms`, 'ETIMEDOUT')));
      }
      if (r.body !== undefined) stream.end(r.body);
      this.follow(lane, stream, r.signal, r.signalUntilResponse === true, resolve, reject);
    });
  }

  /**
   * Settles a sent stream's request. Its listeners live as long as the stream, a watch's for minutes, so they
   * keep only what they need: not the request nor the promise's callbacks once the head arrived, and with
   * signalUntilResponse not the signal either (a hollow fleet holds 127,000 watches).
   */
  private follow(
    lane: Lane,
    stream: ClientHttp2Stream,
    signal: AbortSignal | undefined,
    signalUntilResponse: boolean,
    resolve: (res: ResponseStream) => void,
    reject: (err: Error) => void,
  ): void {
    const res = stream as ClientHttp2Stream & { statusCode?: number; headers: IncomingHttpHeaders; complete: boolean };
    res.complete = false;
    let pending: { signal: AbortSignal | undefined; resolve: typeof resolve; reject: typeof reject } | undefined = {
      signal,
      resolve,
      reject,
    };
    const onAbort = (): void => {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let held = signal;
    stream.once('close', () => {
      held?.removeEventListener('abort', onAbort);
      this.release(lane);
      if (pending === undefined) return;
      pending.reject(pending.signal?.aborted === true ? abortError() : this.streamError(stream));
      pending = undefined;
    });
    stream.once('response', (h) => {
      res.statusCode = Number(h[':status']);
      res.headers = h;
      stream.once('end', () => (res.complete = true));
      const { resolve: done } = pending!;
      pending = undefined;
      if (signalUntilResponse) {
        held?.removeEventListener('abort', onAbort);
        held = undefined;
      }
      done(res);
    });
    stream.on('error', (err) => {
      if (pending === undefined) return;
      pending.reject(this.classify(stream, err));
      pending = undefined;
    });
  }

  /** The error of a stream that closed before its response head. */
  private streamError(stream: ClientHttp2Stream): Error {
    // REFUSED_STREAM: the server did not process it (over its limit, or past a GOAWAY's last stream).
    if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM)
      return connectionError('http2 stream refused by the server', 'ERR_HTTP2_REFUSED_STREAM');
    return connectionError(`http2 stream closed (code ${stream.rstCode})`, 'ECONNRESET');
  }

  /** The error of a stream that failed before its response head, as errors.ts classifies it. */
  private classify(stream: ClientHttp2Stream, err: Error): Error {
    const code = (err as { code?: string }).code;
    if (err.name === 'AbortError' || code === 'ETIMEDOUT' || code === 'ECONNRESET') return err;
    if (code === 'ERR_HTTP2_GOAWAY_SESSION' || stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM)
      return connectionError(`http2: ${err.message}`, 'ERR_HTTP2_REFUSED_STREAM', err);
    return connectionError(`http2: ${err.message}`, 'ECONNRESET', err);
  }

  /**
   * Like client-go's health check: a ping every interval, the session dropped when one goes unanswered.
   * Only while streams are open: an idle session holds no timer, and its next request starts the checks.
   */
  private startPing(lane: Lane): void {
    const every = this.o.pingIntervalMs ?? 30_000;
    if (every <= 0 || lane.ping !== undefined) return;
    const timeout = this.o.pingTimeoutMs ?? 15_000;
    lane.ping = this.clock.setInterval(() => {
      if (lane.session.destroyed || lane.session.closed) return;
      let answered = false;
      const deadline = this.clock.setTimeout(() => {
        if (answered) return;
        this.stats.pingTimeouts++;
        this.drop(lane, connectionError(`http2: ping not answered within ${timeout} ms`, 'ETIMEDOUT'));
      }, timeout);
      try {
        lane.session.ping((err) => {
          answered = err === null;
          deadline.cancel();
        });
      } catch {
        deadline.cancel();
      }
    }, every);
  }

  /** Stops sending new streams on `lane`; the streams it carries finish there. */
  private retire(lane: Lane): void {
    if (this.lane !== lane) return;
    this.lane = undefined;
    lane.ping?.cancel();
    if (!lane.session.closed && !lane.session.destroyed) lane.session.close();
    for (const w of this.waiters.splice(0)) w();
  }

  /** Ends `lane` at once: its streams fail with `err`. */
  private drop(lane: Lane, err: Error): void {
    this.retire(lane);
    lane.ping?.cancel();
    if (!lane.session.destroyed) lane.session.destroy(err);
  }
}
