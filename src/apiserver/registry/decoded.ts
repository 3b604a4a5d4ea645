/**
 * The objects this store last wrote, decoded, by storage key: an update (PUT,
 * PATCH, status, binding) starts from a copy of the object it wrote last time
 * instead of parsing the stored bytes again. A plain copy of a 3.5 KB pod costs
 * a fraction of JSON.parse of its bytes. An entry is used only while its bytes
 * are exactly the stored ones, so a write from elsewhere (another server, a
 * delete, a failed write) simply misses and decodes as before.
 *
 * Copying costs about half a parse, so only keys written more than once
 * recently are kept (a doorkeeper, as in TinyLFU): a controller rewriting a
 * Deployment's status or a kubelet moving a new pod through its phases is
 * kept, while status churn spread over 75,000 pods, where almost nothing would
 * be read back before eviction, no longer pays a copy per write.
 */
import type { KeyValue } from '../../storage/index.js';
import { decode } from '../codec.js';
import { deepCopy, meta, type Obj } from '../object.js';

interface Entry {
  value: Buffer;
  /** What JSON.parse(value) gives, without metadata.resourceVersion; never handed out, only copies. */
  obj: Obj;
}

/** A bounded map from storage key to the last object written there, decoded. */
export class DecodedObjects {
  private readonly entries = new Map<string, Entry>();
  /** Keys written once recently and not kept yet, oldest first. */
  private readonly seen = new Set<string>();
  private readonly maxSeen: number;

  /** `max` bounds memory: a decoded pod costs several times its JSON, so only recent writes are kept. */
  constructor(private readonly max = 1024) {
    this.maxSeen = 4 * max;
  }

  /**
   * Remembers `obj` as the decoded form of `value` (its encodeForStorage
   * bytes) when `key` was written recently before or is kept already; a first
   * write only notes the key. The entry is a copy with JSON's semantics (undefined members dropped, key order as stored), so it equals what
   * decoding `value` would give; an object JSON cannot round-trip exactly is not remembered.
   */
  remember(key: string, value: Buffer, obj: Obj): void {
    if (!this.entries.delete(key) && !this.seen.delete(key)) {
      // First write seen: note the key only; its next write is kept.
      if (this.seen.size >= this.maxSeen) this.seen.delete(this.seen.values().next().value as string);
      this.seen.add(key);
      return;
    }
    const copy = storedCopy(obj);
    if (copy === undefined) return;
    if (this.entries.size >= this.max) {
      // Evict the oldest write (Map iterates in insertion order; a rewrite re-inserts).
      for (const k of this.entries.keys()) {
        this.entries.delete(k);
        break;
      }
    }
    this.entries.set(key, { value, obj: copy });
  }

  /** The stored record `kv` of `key` decoded, with metadata.resourceVersion set; callers own the result. */
  decode(key: string, kv: KeyValue): Obj {
    const e = this.entries.get(key);
    if (e === undefined || (e.value !== kv.value && !e.value.equals(kv.value))) return decode(kv);
    const obj = deepCopy(e.obj);
    meta(obj).resourceVersion = String(kv.modRevision);
    return obj;
  }

  /** How many objects are remembered (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

/** Thrown inside storedCopy for a value JSON would not round-trip as it is. */
const NOT_PLAIN = new Error('not plain JSON');

/** JSON.parse(encodeForStorage(obj)) without the text, or undefined when that cannot be done exactly. */
function storedCopy(obj: Obj): Obj | undefined {
  const { kind, apiVersion, metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...m } = (metadata ?? {}) as Obj;
  try {
    return copyValue({ kind, apiVersion, metadata: m, ...rest }) as Obj;
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
}

// JSON.stringify's rules for plain values: undefined members vanish, undefined items and
// non-finite numbers become null; anything else (Dates, class instances, bigints) gives up.
function copyValue(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v[i] === undefined ? null : copyValue(v[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const out: Obj = {};
  for (const k of Object.keys(v)) {
    const x = (v as Obj)[k] as unknown;
    if (x === undefined) continue;
    if (typeof x === 'function' || typeof x === 'symbol') {
      if (k === 'toJSON') throw NOT_PLAIN; // JSON.stringify would call it
      continue;
    }
    // A decoded "__proto__" key is an own field; plain assignment would set the prototype instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value: copyValue(x), enumerable: true, writable: true, configurable: true });
    else out[k] = copyValue(x);
  }
  return out;
}
