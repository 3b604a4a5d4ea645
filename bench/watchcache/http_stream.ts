/**
 * A streaming HTTP/1.1 response reader for long or huge bodies: it parses the
 * head, then decodes chunked (or Content-Length) framing incrementally and
 * hands each body slice on without keeping it. The watch client splits the
 * slices into lines (one WatchEvent each); the LIST timer only counts bytes.
 * bench/apiserver's HttpConn buffers whole bodies and re-parses them on every
 * read, which is right for small answers and quadratic for a 400 MB LIST.
 */

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const NL = 0x0a;

/** Callbacks of a ResponseStream. */
export interface StreamHandlers {
  /** The status line and headers arrived. */
  head(status: number): void;
  /** A slice of the decoded body (valid only during the call). */
  data(slice: Buffer): void;
  /** The body ended (terminating chunk, or Content-Length reached). */
  end(): void;
}

type State = 'head' | 'size' | 'data' | 'data-crlf' | 'trailer' | 'length' | 'done';

/** Decodes one response from raw socket bytes, fed in order. */
export class ResponseStream {
  private state: State = 'head';
  private pending: Buffer = Buffer.alloc(0);
  private left = 0;
  /** Decoded body bytes so far. */
  bodyBytes = 0;

  constructor(private readonly on: StreamHandlers) {}

  /** Whether the body has ended. */
  get done(): boolean {
    return this.state === 'done';
  }

  /** Feeds bytes read from the socket. */
  feed(d: Buffer): void {
    const buf = this.pending.length === 0 ? d : Buffer.concat([this.pending, d]);
    this.pending = Buffer.alloc(0);
    let at = 0;
    // Every pass consumes bytes or waits for more, so this loop ends.
    while (at < buf.length && this.state !== 'done') {
      switch (this.state) {
        case 'head': {
          const end = buf.indexOf(CRLF_CRLF, at);
          if (end < 0) return this.keep(buf, at);
          const head = buf.toString('latin1', at, end).toLowerCase();
          at = end + 4;
          this.on.head(Number(head.slice(9, 12)));
          const cl = /\r\ncontent-length:\s*(\d+)/.exec(head);
          if (cl !== null) {
            this.left = Number(cl[1]);
            this.state = 'length';
            if (this.left === 0) this.finish();
          } else if (/\r\ntransfer-encoding:\s*chunked/.test(head)) this.state = 'size';
          else this.finish();
          break;
        }
        case 'size': {
          const end = buf.indexOf('\r\n', at, 'latin1');
          if (end < 0) return this.keep(buf, at);
          const size = parseInt(buf.toString('latin1', at, end), 16);
          at = end + 2;
          if (!Number.isFinite(size)) throw new Error('bad chunk size');
          if (size === 0) this.state = 'trailer';
          else {
            this.left = size;
            this.state = 'data';
          }
          break;
        }
        case 'data':
        case 'length': {
          const n = Math.min(this.left, buf.length - at);
          this.bodyBytes += n;
          this.on.data(buf.subarray(at, at + n));
          at += n;
          this.left -= n;
          if (this.left === 0) {
            if (this.state === 'length') this.finish();
            else this.state = 'data-crlf';
          }
          break;
        }
        case 'data-crlf': {
          if (buf.length - at < 2) return this.keep(buf, at);
          at += 2;
          this.state = 'size';
          break;
        }
        case 'trailer': {
          // No trailers are sent: the last chunk is followed by one CRLF.
          if (buf.length - at < 2) return this.keep(buf, at);
          at += 2;
          this.finish();
          break;
        }
      }
    }
  }

  private keep(buf: Buffer, at: number): void {
    this.pending = Buffer.from(buf.subarray(at));
  }

  private finish(): void {
    this.state = 'done';
    this.on.end();
  }
}

/** Splits body slices into '\n'-terminated lines (without the '\n'). */
export class LineSplitter {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    /** A line longer than this is a protocol error (a watch frame is one object). */
    private readonly maxLine = 16 * 1024 * 1024,
  ) {}

  /** Feeds a body slice. */
  push(slice: Buffer): void {
    let at = 0;
    for (;;) {
      const nl = slice.indexOf(NL, at);
      if (nl < 0) break;
      if (this.partial.length === 0) this.onLine(slice.subarray(at, nl));
      else {
        this.partial.push(slice.subarray(at, nl));
        const line = Buffer.concat(this.partial);
        this.partial = [];
        this.partialBytes = 0;
        this.onLine(line);
      }
      at = nl + 1;
    }
    if (at < slice.length) {
      // The slice is only valid during the call: copy the unfinished tail.
      this.partial.push(Buffer.from(slice.subarray(at)));
      this.partialBytes += slice.length - at;
      if (this.partialBytes > this.maxLine) throw new Error(`watch line longer than ${this.maxLine} bytes`);
    }
  }
}
