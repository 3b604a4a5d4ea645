/**
 * A minimal keep-alive HTTP/1.1 client connection for the load generator:
 * one request in flight at a time, pre-encoded request bytes, and a response
 * parser that only reads the status code, Content-Length (or chunked framing)
 * and the body. Node's `http.Agent` costs several times more CPU per request,
 * and the generator must not be what limits the figures.
 */
import { connect, type Socket } from 'node:net';

/** A response: the status code and the body bytes. */
export interface RawResponse {
  status: number;
  body: Buffer;
}

type Callback = (err: Error | undefined, res?: RawResponse) => void;

const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** One TCP connection to host:port carrying sequential requests. */
export class HttpConn {
  private readonly socket: Socket;
  private buf: Buffer = Buffer.alloc(0);
  private pending: Callback | undefined;
  private closed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by server')));
  }

  /** Opens a connection. */
  static open(host: string, port: number): Promise<HttpConn> {
    return new Promise((resolve, reject) => {
      const s = connect({ host, port });
      s.once('connect', () => {
        s.off('error', reject);
        resolve(new HttpConn(s));
      });
      s.once('error', reject);
    });
  }

  /** True while a request waits for its response. */
  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Sends one request (complete bytes, head and body); cb gets the response. */
  send(request: Buffer | string, cb: Callback): void {
    if (this.closed) {
      cb(new Error('connection is closed'));
      return;
    }
    if (this.pending !== undefined) throw new Error('HttpConn: a request is already in flight');
    this.pending = cb;
    this.socket.write(request);
  }

  /** Closes the connection; a request in flight fails. */
  close(): void {
    this.socket.destroy();
    this.fail(new Error('connection closed'));
  }

  private fail(err: Error): void {
    this.closed = true;
    const cb = this.pending;
    this.pending = undefined;
    if (cb !== undefined) cb(err);
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    const res = parseResponse(this.buf);
    if (res === undefined) return;
    this.buf = this.buf.subarray(res.consumed);
    const cb = this.pending;
    this.pending = undefined;
    if (cb !== undefined) cb(undefined, { status: res.status, body: res.body });
  }
}

/** Parses one complete response at the start of buf, or undefined if more bytes are needed. */
export function parseResponse(buf: Buffer): { status: number; body: Buffer; consumed: number } | undefined {
  const headEnd = buf.indexOf(HEADER_END);
  if (headEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const lower = head.toLowerCase();
  const cl = /\r\ncontent-length:\s*(\d+)/.exec(lower);
  if (cl !== null) {
    const end = bodyStart + Number(cl[1]);
    if (buf.length < end) return undefined;
    return { status, body: buf.subarray(bodyStart, end), consumed: end };
  }
  if (/\r\ntransfer-encoding:\s*chunked/.test(lower)) {
    const chunks: Buffer[] = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf(CRLF, at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
      const dataEnd = lineEnd + 2 + size;
      if (buf.length < dataEnd + 2) return undefined;
      if (size === 0) {
        // No trailers are expected: the terminating chunk is followed by CRLF.
        return { status, body: Buffer.concat(chunks), consumed: dataEnd + 2 };
      }
      chunks.push(buf.subarray(lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
  }
  // No body framing (204, 304 or a HEAD reply).
  return { status, body: Buffer.alloc(0), consumed: bodyStart };
}

/** Encodes a request with an optional JSON body. */
export function encodeRequest(method: string, path: string, host: string, body?: string): Buffer {
  if (body === undefined) {
    return Buffer.from(
      `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nUser-Agent: kscale-bench\r\n\r\n`,
      'latin1',
    );
  }
  const b = Buffer.from(body);
  const head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nUser-Agent: kscale-bench\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), b]);
}
