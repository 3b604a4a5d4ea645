/**
 * Bodyless GETs served on node:http2's core stream API. Node's HTTP/2
 * compatibility layer gives every stream a Readable request and a response
 * object, with a dozen listeners on the stream: ~2.5 KB of heap per stream
 * that an open watch keeps for its whole life (bench/watchmem: 4.1 KB a bare
 * compatibility stream, 1.6 KB a bare core stream), and their construction,
 * listeners and events on every request (~10% of the server's main thread on
 * single-object GETs over HTTP/2, bench/secure). A 2,500-node server holds
 * ~127,000 watches, and every mark-compact walks them. So a GET whose
 * headers end its stream (every GET a real client sends: reads, lists and
 * watches) gets a `StreamRequest` and `StreamResponse` here instead: the part
 * of IncomingMessage and ServerResponse the handler chain uses, over the
 * stream. Neither is an emitter of its own: their listeners go on the
 * stream, whose 'close', 'finish' and 'drain' are theirs. Every other stream
 * (requests with a body) goes to Node's own handler.
 *
 * Written by hand because Node has no lighter server request type; the
 * semantics follow its compatibility layer's (lib/internal/http2/compat.js):
 * `writeHead` responds at once, `end` ends the stream, and both sides 'close'
 * when the stream does.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  constants,
  type Http2SecureServer,
  type IncomingHttpHeaders as Http2Headers,
  type ServerHttp2Stream,
} from 'node:http2';
import type { TLSSocket } from 'node:tls';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
type StreamHandler = (stream: ServerHttp2Stream, headers: Http2Headers, flags: number, rawHeaders: string[]) => void;

/**
 * Serves `server`'s bodyless GET streams on the core API with `listener`; the rest keep Node's compatibility
 * handler. Call after the request listener is added (Node adds its 'stream' handler then).
 */
export function serveBodylessGets(server: Http2SecureServer, listener: Listener): void {
  const compat = server.listeners('stream') as StreamHandler[];
  if (compat.length !== 1) throw new Error(`expected Node's one HTTP/2 compatibility handler, found ${compat.length}`);
  const fallback = compat[0]!;
  server.removeAllListeners('stream');
  server.on('stream', (stream: ServerHttp2Stream, headers: Http2Headers, flags: number, rawHeaders: string[]) => {
    if ((flags & constants.NGHTTP2_FLAG_END_STREAM) === 0 || headers[':method'] !== 'GET') {
      fallback.call(server, stream, headers, flags, rawHeaders);
      return;
    }
    // An 'error' with no listener would throw; the stream's end reaches the handler as 'close'.
    stream.on('error', ignore);
    const req = new StreamRequest(stream, headers, rawHeaders);
    listener(req as unknown as IncomingMessage, new StreamResponse(stream) as unknown as ServerResponse);
  });
}

function ignore(): void {}

type StreamEvent = Parameters<ServerHttp2Stream['on']>[0];
type StreamListener = (...args: unknown[]) => void;

/** Listeners of either side live on the stream: its 'close' is both sides' end, its 'drain' the response's. */
abstract class OnStream {
  constructor(readonly stream: ServerHttp2Stream) {}
  on(event: StreamEvent, f: StreamListener): this {
    this.stream.on(event, f);
    return this;
  }
  addListener(event: StreamEvent, f: StreamListener): this {
    return this.on(event, f);
  }
  once(event: StreamEvent, f: StreamListener): this {
    this.stream.once(event, f);
    return this;
  }
  off(event: StreamEvent, f: StreamListener): this {
    this.stream.off(event, f);
    return this;
  }
  removeListener(event: StreamEvent, f: StreamListener): this {
    return this.off(event, f);
  }
}

const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

// Header names the handlers set are a handful of constants ('Content-Type', 'Audit-Id', ...): each is lowercased once.
const lowerNames = new Map<string, string>();
function lower(name: string): string {
  let key = lowerNames.get(name);
  if (key === undefined) {
    key = name.toLowerCase();
    if (lowerNames.size < 256) lowerNames.set(name, key);
  }
  return key;
}

/** The request side: headers, method, URL, and the TLS socket, as the compatibility request exposes them. */
export class StreamRequest extends OnStream {
  readonly httpVersionMajor = 2;
  readonly httpVersionMinor = 0;
  readonly httpVersion = '2.0';
  /** A bodyless request is complete on arrival. */
  readonly complete = true;
  readonly method: string;
  readonly url: string;

  constructor(
    stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    readonly rawHeaders: string[],
  ) {
    super(stream);
    this.method = String(headers[':method']);
    this.url = String(headers[':path']);
  }

  /** The connection's TLS socket (the compatibility layer hands out a proxy of it). */
  get socket(): TLSSocket | undefined {
    return this.stream.session?.socket as TLSSocket | undefined;
  }

  /** There is no body to read. */
  resume(): this {
    return this;
  }
}

/** The response side: status and headers sent at `writeHead`, then the stream's writes, backpressure and end. */
export class StreamResponse extends OnStream {
  statusCode = 200;
  private headers: OutgoingHttpHeaders | undefined;
  private ending = false;

  get headersSent(): boolean {
    return this.stream.headersSent;
  }
  get writableEnded(): boolean {
    return this.ending;
  }
  get writableFinished(): boolean {
    return this.stream.closed;
  }
  get destroyed(): boolean {
    return this.stream.destroyed;
  }
  /** Bytes written and not yet handed to the connection. */
  get writableLength(): number {
    return this.stream.writableLength;
  }

  /** As the compatibility layer, HTTP/1.1's connection-specific headers are dropped: HTTP/2 forbids them. */
  setHeader(name: string, value: number | string | string[]): this {
    const key = lower(name);
    if (!CONNECTION_HEADERS.has(key)) (this.headers ??= {})[key] = value;
    return this;
  }
  getHeader(name: string): number | string | string[] | undefined {
    return this.headers?.[lower(name)];
  }
  hasHeader(name: string): boolean {
    return this.headers?.[lower(name)] !== undefined;
  }
  removeHeader(name: string): void {
    if (this.headers !== undefined) delete this.headers[lower(name)];
  }

  /** Sends the status and headers now, as the compatibility layer's writeHead does over HTTP/2. */
  writeHead(code: number, reasonOrHeaders?: string | OutgoingHttpHeaders, more?: OutgoingHttpHeaders): this {
    if (this.gone()) return this;
    const extra = typeof reasonOrHeaders === 'string' ? more : reasonOrHeaders;
    if (extra !== undefined) for (const k of Object.keys(extra)) this.setHeader(k, extra[k] as string);
    this.statusCode = code;
    // The headers object is this response's own, and respond() copies what it sends.
    const headers = (this.headers ??= {});
    headers[':status'] = code;
    this.stream.respond(headers, { endStream: this.ending });
    return this;
  }

  flushHeaders(): void {
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
  }

  /** False once the stream's buffer is full; 'drain' follows. */
  write(chunk: string | Uint8Array, encoding?: BufferEncoding): boolean {
    if (this.gone()) return false;
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
    return this.stream.write(chunk, encoding as BufferEncoding);
  }

  end(chunk?: string | Uint8Array, encoding?: BufferEncoding): this {
    if (this.ending) return this;
    if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
    this.ending = true;
    if (this.gone()) return this;
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
    else this.stream.end();
    return this;
  }

  cork(): void {
    this.stream.cork();
  }
  uncork(): void {
    this.stream.uncork();
  }

  destroy(err?: Error): void {
    this.stream.destroy(err);
  }

  private gone(): boolean {
    return this.stream.closed || this.stream.destroyed;
  }
}
