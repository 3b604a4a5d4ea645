/**
 * A live entry of the watch cache: an EncodedObject (see ../encoded_object.ts)
 * with its namespace and index values. Objects are not kept decoded: a parsed
 * 2 KB pod costs several times its JSON, so the cache decodes on demand and
 * keeps only index values.
 */
import type { KeyValue } from '../interface.js';
import { EncodedObject, type ObjectCodec } from '../encoded_object.js';

export {
  EncodedObject,
  jsonCodec,
  resourceVersionParts,
  spliceResourceVersion,
  type ObjectCodec,
} from '../encoded_object.js';

/**
 * A live entry of the cache's state: the current version of one key, with its
 * namespace and index values. It holds the KeyValue's fields itself rather
 * than the KeyValue: the cache keeps one entry per object (75,000 pods at
 * scale), and every object it holds is one more for each major GC to mark.
 */
export class CachedObject extends EncodedObject {
  /** The revision of the write that created this key. */
  readonly createRevision: number;
  // The index values, one per configured indexer: the first three in fields of the entry itself (every
  // resource has one to three indexers), so an entry holds no array of them, objects fewer to mark.
  private readonly index0: string;
  private readonly index1: string;
  private readonly index2: string;
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
    this.index2 = indexValues[2] ?? '';
    this.indexRest = indexValues.length > 3 ? indexValues.slice(3) : undefined;
  }

  /** The value of indexer `i` (in indexer order). */
  indexValue(i: number): string {
    return i === 0 ? this.index0 : i === 1 ? this.index1 : i === 2 ? this.index2 : (this.indexRest?.[i - 3] ?? '');
  }

  /** The entry as storage's KeyValue (a new object each call). */
  get kv(): KeyValue {
    return { key: this.key, value: this.value, createRevision: this.createRevision, modRevision: this.revision };
  }

  /** This object shown at another revision (a deletion's, or a selector exit's). */
  at(revision: number): EncodedObject {
    return revision === this.revision ? this : new EncodedObject(this.key, this, revision, this.codec);
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
