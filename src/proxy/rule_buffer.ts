/**
 * A growing byte buffer for rule text. Rendering 10k services means ~300k
 * lines; kept as strings in arrays they live long enough to reach V8's old
 * generation and GC then costs more than the rendering. Written straight into
 * bytes, each line's pieces die young. Rule text is ASCII.
 */
import type { BufferPool } from './buffer_pool.js';

/** Whole lines inside a buffer (bytes start to end), kept to be appended to a later rendering. */
export interface Piece {
  buf: Buffer;
  start: number;
  end: number;
  lines: number;
}

/** Node's fast latin1 writer; present on every Buffer but missing from @types/node. */
type Latin1Writer = Buffer & { latin1Write(s: string, offset: number): number };

export class RuleBuffer {
  private buf: Buffer;
  private len = 0;
  /** Lines written. */
  lines = 0;

  /** Starts in a spare buffer of `pool` when one fits. */
  constructor(initialBytes = 64 * 1024, pool?: BufferPool) {
    this.buf = pool?.take(initialBytes) ?? Buffer.allocUnsafe(initialBytes);
  }

  /** Appends text (no newline added). */
  write(s: string): void {
    if (this.len + s.length > this.buf.length) this.grow(s.length);
    // buf.write(s, offset, 'latin1') goes through argument parsing that costs more than the copy.
    this.len += (this.buf as Latin1Writer).latin1Write(s, this.len);
  }

  /** Appends one line and counts it. */
  line(s: string): void {
    this.write(s);
    if (this.len + 1 > this.buf.length) this.grow(1);
    this.buf[this.len++] = 10;
    this.lines++;
  }

  /** Appends a piece (whole lines) kept from an earlier rendering. */
  append(piece: Piece): void {
    const n = piece.end - piece.start;
    if (this.len + n > this.buf.length) this.grow(n);
    this.buf.set(new Uint8Array(piece.buf.buffer, piece.buf.byteOffset + piece.start, n), this.len);
    this.len += n;
    this.lines += piece.lines;
  }

  /**
   * The lines written since `offset` and `lines`, in place (no copy): valid until this buffer is written over,
   * which it never is (growing moves to a new buffer and leaves the old one as it was).
   */
  piece(offset: number, lines: number): Piece {
    return { buf: this.buf, start: offset, end: this.len, lines: this.lines - lines };
  }

  /** A copy of the lines written since `offset` and `lines` (`length` and `lines` read earlier), to append again later. */
  since(offset: number, lines: number): Piece {
    const buf = Buffer.allocUnsafe(this.len - offset);
    this.buf.copy(buf, 0, offset, this.len);
    return { buf, start: 0, end: buf.length, lines: this.lines - lines };
  }

  /** Bytes written so far. */
  get length(): number {
    return this.len;
  }

  /** The whole buffer now written into, unused capacity included (what a pool takes back). */
  backing(): Buffer {
    return this.buf;
  }

  /** The bytes written (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + need));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}
