/**
 * One object version as the watch cache holds it: the stored bytes, plus the
 * response bytes with metadata.resourceVersion spliced in, encoded at most once
 * per format and shared by every watcher, list and get (upstream's
 * cachingObject). Objects are not kept decoded: a parsed 2 KB pod costs several
 * times its JSON, so the cache decodes on demand and keeps only index values.
 */
import type { KeyValue } from '../interface.js';

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

/** How the cache turns stored bytes into objects and response bytes; supplied per resource. */
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

/**
 * A live entry of the cache's state: the current version of one key, with its
 * namespace and index values. It holds the KeyValue's fields itself rather
 * than the KeyValue: the cache keeps one entry per object (75,000 pods at
 * scale), and every object it holds is one more for each major GC to mark.
 */
export class CachedObject extends EncodedObject {
  /** The revision of the write that created this key. */
  readonly createRevision: number;
  // The index values, one per configured indexer: the first two in fields of the entry itself (every
  // resource has one or two indexers), so an entry holds no array of them, two objects fewer to mark.
  private readonly index0: string;
  private readonly index1: string;
  private readonly indexRest: readonly string[] | undefined;

  constructor(
    kv: KeyValue,
    /** The namespace segment of the key ('' for cluster-scoped objects). */
    readonly namespace: string,
    /** One value per configured indexer, in indexer order (not kept: read them with indexValue). */
    indexValues: readonly string[],
    codec: ObjectCodec,
  ) {
    super(kv.key, kv.value, kv.modRevision, codec);
    this.createRevision = kv.createRevision;
    this.index0 = indexValues[0] ?? '';
    this.index1 = indexValues[1] ?? '';
    this.indexRest = indexValues.length > 2 ? indexValues.slice(2) : undefined;
  }

  /** The value of indexer `i` (in indexer order). */
  indexValue(i: number): string {
    return i === 0 ? this.index0 : i === 1 ? this.index1 : (this.indexRest?.[i - 2] ?? '');
  }

  /** The entry as storage's KeyValue (a new object each call). */
  get kv(): KeyValue {
    return { key: this.key, value: this.value, createRevision: this.createRevision, modRevision: this.revision };
  }

  /** This object shown at another revision (a deletion's, or a selector exit's). */
  at(revision: number): EncodedObject {
    return revision === this.revision ? this : new EncodedObject(this.key, this.value, revision, this.codec);
  }
}

/**
 * One string per distinct value, so the cache's entries share it instead of holding a copy each (every string
 * parsed from JSON or sliced from a key is a new one). Bounded: a flood of values just stops being shared, it
 * does not grow the table without end.
 */
export class StringTable {
  private readonly strings = new Map<string, string>();
  constructor(private readonly maxStrings = 100_000) {}

  intern(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size < this.maxStrings) this.strings.set(s, s);
    return s;
  }
}

/** Namespaces seen in keys. */
const namespaces = new StringTable();

/** The namespace of a key under `resourcePrefix`: its first segment when a name follows, else ''. */
export function namespaceOfKey(resourcePrefix: string, key: string): string {
  const rel = key.slice(resourcePrefix.length);
  const slash = rel.indexOf('/');
  return slash < 0 ? '' : namespaces.intern(rel.slice(0, slash));
}
