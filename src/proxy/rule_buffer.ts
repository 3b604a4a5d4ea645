/**
 * A growing byte buffer for rule text. Rendering 10k services means ~300k
 * lines; kept as strings in arrays they live long enough to reach V8's old
 * generation and GC then costs more than the rendering. Written straight into
 * bytes, each line's pieces die young. Rule text is ASCII.
 */
/** Node's fast latin1 writer; present on every Buffer but missing from @types/node. */
type Latin1Writer = Buffer & { latin1Write(s: string, offset: number): number };

export class RuleBuffer {
  private buf: Buffer;
  private len = 0;
  /** Lines written. */
  lines = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
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

  /** Appends bytes that hold `lines` whole lines (a piece cut with `since`). */
  append(piece: Buffer, lines: number): void {
    if (this.len + piece.length > this.buf.length) this.grow(piece.length);
    this.buf.set(piece, this.len);
    this.len += piece.length;
    this.lines += lines;
  }

  /** A copy of the bytes written after `offset` (from `length` earlier), to append again later. */
  since(offset: number): Buffer {
    const out = Buffer.allocUnsafe(this.len - offset);
    this.buf.copy(out, 0, offset, this.len);
    return out;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.len;
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
