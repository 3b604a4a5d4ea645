/**
 * The protobuf wire format, read only: varints, fixed 32/64-bit values and
 * length-delimited fields, with a typed error for every malformed input (a
 * request body is untrusted).
 */

/** Wire types (groups, 3 and 4, are not used by Kubernetes and are refused). */
export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** A body that is not valid protobuf; the API server answers 400. */
export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
}

/** A cursor over one message's bytes, `[pos, end)` of `buf`. */
export class WireReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  /** True once every byte of the message is read. */
  done(): boolean {
    return this.pos >= this.end;
  }

  /** Reads a field key: its number and wire type. */
  key(): { field: number; wire: number } {
    const k = this.varint();
    const field = Math.floor(k / 8);
    const wire = k % 8;
    if (field <= 0 || field > 0x1fffffff) throw new ProtobufError(`proto: illegal field number ${field}`);
    return { field, wire };
  }

  /** Reads a varint as an unsigned number; values past 2^53 lose precision (upstream's int64 fields never get there in practice). */
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('proto: unexpected EOF in a varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new ProtobufError('proto: integer overflow in a varint');
  }

  /** Reads a varint as a signed 64-bit integer (two's complement, as Go's int64 and sign-extended int32). */
  int64(): number {
    const start = this.pos;
    const u = this.varint();
    if (u < 2 ** 63) return u;
    // Negative: redo exactly with BigInt, since the double lost the low bits.
    let big = 0n;
    let shift = 0n;
    for (let p = start; p < this.pos; p++, shift += 7n) big |= BigInt(this.buf[p]! & 0x7f) << shift;
    return Number(BigInt.asIntN(64, big));
  }

  /** Reads a varint as Go's int32: the low 32 bits, signed. */
  int32(): number {
    return this.int64() | 0;
  }

  /** Reads 4 little-endian bytes. */
  fixed32(): DataView {
    return this.view(4);
  }

  /** Reads 8 little-endian bytes. */
  fixed64(): DataView {
    return this.view(8);
  }

  /** Reads a length-delimited field, returning its [start, end). */
  lengthDelimited(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (len > this.end - start) throw new ProtobufError(`proto: a length of ${len} runs past the end of the message`);
    this.pos = start + len;
    return [start, this.pos];
  }

  /** Skips a field's value of the given wire type (an unknown field). */
  skip(wire: number): void {
    switch (wire) {
      case WIRE.varint:
        this.varint();
        return;
      case WIRE.fixed64:
        this.view(8);
        return;
      case WIRE.bytes:
        this.lengthDelimited();
        return;
      case WIRE.fixed32:
        this.view(4);
        return;
      default:
        throw new ProtobufError(`proto: illegal wireType ${wire}`);
    }
  }

  private view(n: number): DataView {
    if (this.end - this.pos < n) throw new ProtobufError('proto: unexpected EOF in a fixed-width value');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return v;
  }
}
