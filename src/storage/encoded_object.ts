/**
 * One object version as storage reads hand it out: the stored bytes, plus the
 * response bytes with metadata.resourceVersion spliced in, encoded at most once
 * per format (upstream's cachingObject). The object-level storage contract
 * returns these; the watch cache keeps them, shared by every watcher, list and get.
 */
import { isAscii } from 'node:buffer';
import { ownedBuffer } from './owned_buffer.js';

const META_TEXT = '"metadata":{';
const META = Buffer.from(META_TEXT);

/**
 * The stored JSON with metadata.resourceVersion set to `rv`, as slices that
 * share the stored bytes (write them in order). Stored objects never carry a
 * resourceVersion (it is the storage revision), so splicing it after the first
 * `"metadata":{` is enough: stored bytes start with kind, apiVersion and metadata.
 */
export function resourceVersionParts(value: Buffer, rv: number): Buffer[] {
  const at = value.indexOf(META);
  if (at < 0) return [value];
  const cut = at + META.length;
  const empty = value[cut] === 0x7d; // '}': metadata has no other field
  return [value.subarray(0, cut), Buffer.from(`"resourceVersion":"${rv}"${empty ? '' : ','}`), value.subarray(cut)];
}

/** The stored JSON with metadata.resourceVersion set to `rv`, in one buffer, without parsing. */
export function spliceResourceVersion(value: Buffer, rv: number): Buffer {
  const parts = resourceVersionParts(value, rv);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** How stored bytes become objects and response bytes; supplied per resource. */
export interface ObjectCodec {
  /** Decodes stored bytes (default JSON.parse); the result is never cached, so callers may mutate it. */
  decode(value: Buffer): unknown;
  /** The response bytes of a stored value at `rv` (default: splice metadata.resourceVersion). */
  encode(value: Buffer, rv: number): Buffer;
}

/** JSON in, JSON with resourceVersion out. */
export const jsonCodec: ObjectCodec = {
  decode: (value) => JSON.parse(value.toString('utf8')),
  encode: spliceResourceVersion,
};

/**
 * An object at one resourceVersion, with its encodings memoised. A DELETED
 * event shows the deleted object at the deletion's revision, so it gets an
 * EncodedObject of its own rather than reusing the live entry's bytes.
 *
 * The stored bytes are kept as a one-byte string, byte for byte (latin1), on
 * V8's heap rather than in an ArrayBuffer of their own. V8 starts a
 * mark-compact whenever ArrayBuffer memory has grown by 64 MB since the last
 * one, whatever the heap limit says: with every cached version in an
 * ArrayBuffer, the cache's churn (a new one per write, the old one dying in the
 * old generation) started 100 of the 117 mark-compacts of a 2,500-node run, one
 * every ~17 s (docs/history/2026-12-05-watch-memory-2500.md). On the heap, the
 * same bytes count against the old generation's limit (twice the live heap),
 * and a string is one object for the GC to mark where a Buffer is three.
 */
export class EncodedObject {
  /** Another codec's response bytes, encoded once (latin1). */
  private json: string | undefined;
  private formats: Map<string, unknown> | undefined;
  /** The stored bytes (no resourceVersion), one char per byte. */
  private readonly text: string;
  /** Whether every stored byte is ASCII, so `text` is also their UTF-8 decoding. */
  private readonly ascii: boolean;

  constructor(
    /** The key in storage. */
    readonly key: string,
    /** The stored bytes (no resourceVersion), or another object's, to show them at another revision. */
    value: Buffer | EncodedObject,
    /** The resourceVersion this object is shown at. */
    readonly revision: number,
    protected readonly codec: ObjectCodec,
  ) {
    if (value instanceof EncodedObject) {
      this.text = value.text;
      this.ascii = value.ascii;
    } else {
      this.text = value.toString('latin1');
      this.ascii = isAscii(value);
    }
  }

  /**
   * The stored bytes, in a new Buffer each call (the object keeps them as a string; see the class comment). An
   * update's current value becomes its watch event's prevKv and lives until the event is processed: it owns
   * its memory (see owned_buffer.ts).
   */
  get value(): Buffer {
    return ownedBuffer(this.text, 'latin1');
  }

  /** The stored bytes' length. */
  get size(): number {
    return this.text.length;
  }

  /**
   * The response bytes (metadata.resourceVersion set) as a one-byte string, byte for byte (latin1). JSON's are
   * spliced from the stored string without copying it (V8 keeps the pieces as slices); another codec's bytes are
   * encoded once and kept.
   */
  responseText(): string {
    const p = this.pieces();
    return p.length === 1 ? p[0] : p[0] + p[1] + p[2];
  }

  /** The response text in pieces to write in order: the stored string's slices around the resourceVersion. */
  private pieces(): [string] | [string, string, string] {
    if (this.codec !== jsonCodec)
      return [(this.json ??= this.codec.encode(this.value, this.revision).toString('latin1'))];
    const t = this.text;
    const cut = t.indexOf(META_TEXT);
    if (cut < 0) return [t];
    const end = cut + META_TEXT.length;
    const sep = t.charCodeAt(end) === 0x7d ? '' : ','; // '}': metadata has no other field
    return [t.slice(0, end), `"resourceVersion":"${this.revision}"${sep}`, t.slice(end)];
  }

  /** The response bytes in a new Buffer (see responseText). */
  bytes(): Buffer {
    return Buffer.from(this.responseText(), 'latin1');
  }

  /**
   * Copies the response bytes into `target` at `at`, and returns the offset after them, or -1 when they would
   * pass `limit`. A list copies 75,000 objects this way into reused chunks instead of making a buffer per object.
   */
  copyInto(target: Buffer, at: number, limit = target.length): number {
    // Piece by piece: slices of the stored string are flat, where their concatenation would be flattened
    // into a new string on every copy (a 75,000-pod list would allocate the whole list again).
    const p = this.pieces();
    let n = 0;
    for (const s of p) n += s.length;
    if (at + n > limit) return -1;
    for (const s of p) at += target.write(s, at, 'latin1');
    return at;
  }

  /** A fresh decoded copy with metadata.resourceVersion set; callers own it. */
  decode(): unknown {
    const obj = (
      this.codec !== jsonCodec
        ? this.codec.decode(this.value)
        : JSON.parse(this.ascii ? this.text : Buffer.from(this.text, 'latin1').toString('utf8'))
    ) as { metadata?: Record<string, unknown> } | null;
    if (obj !== null && typeof obj === 'object') (obj.metadata ??= {}).resourceVersion = String(this.revision);
    return obj;
  }

  /** Another encoding (e.g. a Table row), computed once per format and shared. */
  encoded<T>(format: string, encode: (o: EncodedObject) => T): T {
    this.formats ??= new Map();
    if (this.formats.has(format)) return this.formats.get(format) as T;
    const v = encode(this);
    this.formats.set(format, v);
    return v;
  }
}
