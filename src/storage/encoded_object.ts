/**
 * One object version as storage reads hand it out: the stored bytes, plus the
 * response bytes with metadata.resourceVersion spliced in, encoded at most once
 * per format (upstream's cachingObject). The object-level storage contract
 * returns these; the watch cache keeps them, shared by every watcher, list and get.
 */
const META = Buffer.from('"metadata":{');

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

/**
 * `b` itself when it owns its whole ArrayBuffer, else an exact-size copy
 * outside Node's Buffer pool. Buffers under 4 KB (every pod's JSON, and what
 * Buffer.concat makes of it) are slices of shared 8 KB pool slabs, and one
 * slice the cache keeps for minutes pins its whole slab: at 75,000 pods that
 * is most of the server's heap growth per pod.
 */
export function ownBytes(b: Buffer): Buffer {
  if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength) return b;
  const copy = Buffer.allocUnsafeSlow(b.byteLength);
  b.copy(copy);
  return copy;
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
 */
export class EncodedObject {
  private json: Buffer | undefined;
  private formats: Map<string, unknown> | undefined;

  constructor(
    /** The key in storage. */
    readonly key: string,
    /** The stored bytes (no resourceVersion). */
    readonly value: Buffer,
    /** The resourceVersion this object is shown at. */
    readonly revision: number,
    protected readonly codec: ObjectCodec,
  ) {}

  /** The JSON response bytes with metadata.resourceVersion set, encoded once. */
  bytes(): Buffer {
    return (this.json ??= ownBytes(this.codec.encode(this.value, this.revision)));
  }

  /**
   * The response bytes as slices around the spliced resourceVersion, sharing
   * the stored bytes: a list writes these instead of keeping (or making) a
   * second full copy of every object.
   */
  parts(): Buffer[] {
    if (this.json !== undefined || this.codec !== jsonCodec) return [this.bytes()];
    return resourceVersionParts(this.value, this.revision);
  }

  /**
   * Copies the response bytes (the stored JSON with the resourceVersion spliced
   * in) into `target` at `at` without allocating, and returns the offset after
   * them, or -1 when they would pass `limit`. A list copies 75,000 objects this way into
   * reused chunks instead of making slices and a buffer per object.
   */
  copyInto(target: Buffer, at: number, limit = target.length): number {
    if (this.json !== undefined || this.codec !== jsonCodec) {
      const b = this.bytes();
      if (at + b.length > limit) return -1;
      return at + b.copy(target, at);
    }
    const v = this.value;
    const cut = v.indexOf(META);
    if (cut < 0) {
      if (at + v.length > limit) return -1;
      return at + v.copy(target, at);
    }
    const end = cut + META.length;
    const rv = v[end] === 0x7d ? `"resourceVersion":"${this.revision}"` : `"resourceVersion":"${this.revision}",`;
    if (at + v.length + rv.length > limit) return -1;
    at += v.copy(target, at, 0, end);
    at += target.write(rv, at, 'latin1');
    return at + v.copy(target, at, end);
  }

  /** A fresh decoded copy with metadata.resourceVersion set; callers own it. */
  decode(): unknown {
    const obj = this.codec.decode(this.value) as { metadata?: Record<string, unknown> } | null;
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
