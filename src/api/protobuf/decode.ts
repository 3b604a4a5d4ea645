/**
 * Decodes a protobuf message into the plain JSON object upstream's Go types
 * would encode: fields in struct order, `omitempty` zero values left out,
 * pointers kept when set, inline structs merged, and apimachinery's special
 * types (Time, MicroTime, Duration, Quantity, IntOrString, FieldsV1,
 * RawExtension) in their JSON form. Unknown field numbers are skipped, as
 * gogo-generated Unmarshal does (upstream has no strict protobuf decoding).
 */
import { FLAG, SPECIAL, type FieldDescriptor } from './descriptor.js';
import { MESSAGES } from './descriptors.generated.js';
import { ProtobufError, WIRE, WireReader } from './wire.js';

type Obj = Record<string, unknown>;

/** Decodes nested RawExtension payloads that are themselves protobuf (set by envelope.ts, which depends on this file). */
export const nested: { decodeEnvelope?: (bytes: Uint8Array, depth: number) => Obj } = {};

/** How deep messages may nest; Kubernetes types are not recursive, so only a crafted body gets near it. */
export const MAX_MESSAGE_DEPTH = 64;

const byNumber = new Map<string, Map<number, number>>();

function indexOf(type: string): Map<number, number> {
  let m = byNumber.get(type);
  if (m === undefined) {
    const fields = MESSAGES[type];
    if (fields === undefined) throw new ProtobufError(`no protobuf descriptor for ${type}`);
    m = new Map(fields.map((f, i) => [f[0], i]));
    byNumber.set(type, m);
  }
  return m;
}

/** Decodes the message `type` from `buf[start, end)` into its JSON object. */
export function decodeMessage(type: string, buf: Uint8Array, start = 0, end = buf.length, depth = 0): Obj {
  if (depth > MAX_MESSAGE_DEPTH) throw new ProtobufError(`proto: messages nest deeper than ${MAX_MESSAGE_DEPTH}`);
  const fields = MESSAGES[type]!;
  const index = indexOf(type);
  const values: unknown[] = new Array(fields.length);
  const r = new WireReader(buf, start, end);
  while (!r.done()) {
    const { field, wire } = r.key();
    const i = index.get(field);
    if (i === undefined) {
      r.skip(wire);
      continue;
    }
    const f = fields[i]!;
    const [, name, ftype, flags] = f;
    if (ftype.startsWith('map:')) {
      expectWire(wire, WIRE.bytes, type, name);
      const [s, e] = r.lengthDelimited();
      const [k, v] = decodeMapEntry(ftype.slice(4), buf, s, e, depth, type, name);
      // An own property even for "__proto__", as JSON.parse makes it (a plain assignment would set the prototype).
      Object.defineProperty((values[i] ??= {}) as Obj, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else if ((flags & FLAG.repeated) !== 0) {
      const list = (values[i] ??= []) as unknown[];
      if (wire === WIRE.bytes && isPackable(ftype)) {
        const [s, e] = r.lengthDelimited();
        const packed = new WireReader(buf, s, e);
        while (!packed.done()) list.push(readScalar(packed, ftype));
      } else {
        list.push(readValue(r, wire, ftype, buf, depth, type, name));
      }
    } else {
      values[i] = readValue(r, wire, ftype, buf, depth, type, name);
    }
  }
  return toJSON(fields, values);
}

/** Builds the object in struct order with encoding/json's omitempty rules. */
function toJSON(fields: readonly FieldDescriptor[], values: unknown[]): Obj {
  const out: Obj = {};
  for (let i = 0; i < fields.length; i++) {
    const v = values[i];
    if (v === undefined) continue;
    const [, name, , flags] = fields[i]!;
    if ((flags & FLAG.inline) !== 0) {
      Object.assign(out, v);
      continue;
    }
    if (
      (flags & FLAG.omitempty) !== 0 &&
      (flags & FLAG.pointer) === 0 &&
      (v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0))
    )
      continue;
    out[name] = v;
  }
  return out;
}

function decodeMapEntry(
  valueType: string,
  buf: Uint8Array,
  start: number,
  end: number,
  depth: number,
  msg: string,
  name: string,
): [string, unknown] {
  const r = new WireReader(buf, start, end);
  let key = '';
  let value: unknown;
  while (!r.done()) {
    const { field, wire } = r.key();
    if (field === 1) {
      expectWire(wire, WIRE.bytes, msg, `${name} key`);
      key = readString(r);
    } else if (field === 2) {
      value = readValue(r, wire, valueType, buf, depth, msg, `${name}[${key}]`);
    } else {
      r.skip(wire);
    }
  }
  // A missing value is the type's zero value, as Go's map entry decoding leaves it.
  return [key, value ?? zeroOf(valueType, buf, depth)];
}

function zeroOf(type: string, buf: Uint8Array, depth: number): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    default:
      return SCALAR_WIRE[type] !== undefined ? 0 : decodeAny(type, buf, 0, 0, depth + 1);
  }
}

const SCALAR_WIRE: Readonly<Record<string, number>> = {
  int32: WIRE.varint,
  int64: WIRE.varint,
  uint32: WIRE.varint,
  uint64: WIRE.varint,
  bool: WIRE.varint,
  double: WIRE.fixed64,
  fixed64: WIRE.fixed64,
  sfixed64: WIRE.fixed64,
  float: WIRE.fixed32,
  fixed32: WIRE.fixed32,
  sfixed32: WIRE.fixed32,
  string: WIRE.bytes,
  bytes: WIRE.bytes,
};

function isPackable(type: string): boolean {
  const w = SCALAR_WIRE[type];
  return w !== undefined && w !== WIRE.bytes;
}

function expectWire(got: number, want: number, msg: string, name: string): void {
  if (got !== want) throw new ProtobufError(`proto: wrong wireType = ${got} for field ${name} in ${shortName(msg)}`);
}

function shortName(type: string): string {
  return type.slice(type.lastIndexOf('.') + 1);
}

function readValue(
  r: WireReader,
  wire: number,
  type: string,
  buf: Uint8Array,
  depth: number,
  msg: string,
  name: string,
): unknown {
  const scalarWire = SCALAR_WIRE[type];
  if (scalarWire !== undefined) {
    expectWire(wire, scalarWire, msg, name);
    return readScalar(r, type);
  }
  expectWire(wire, WIRE.bytes, msg, name);
  const [s, e] = r.lengthDelimited();
  return decodeAny(type, buf, s, e, depth + 1);
}

function readString(r: WireReader): string {
  const [s, e] = r.lengthDelimited();
  return Buffer.from(r.buf.buffer, r.buf.byteOffset + s, e - s).toString('utf8');
}

function readScalar(r: WireReader, type: string): unknown {
  switch (type) {
    case 'string':
      return readString(r);
    case 'bytes': {
      // []byte is a base64 string in JSON, as Go's encoding/json writes it.
      const [s, e] = r.lengthDelimited();
      return Buffer.from(r.buf.buffer, r.buf.byteOffset + s, e - s).toString('base64');
    }
    case 'bool':
      return r.varint() !== 0;
    case 'int32':
      return r.int32();
    case 'int64':
      return r.int64();
    case 'uint32':
      return r.varint() % 2 ** 32;
    case 'uint64':
      return r.varint();
    case 'double':
      return r.fixed64().getFloat64(0, true);
    case 'float':
      return r.fixed32().getFloat32(0, true);
    case 'fixed32':
      return r.fixed32().getUint32(0, true);
    case 'sfixed32':
      return r.fixed32().getInt32(0, true);
    case 'fixed64':
      return Number(r.fixed64().getBigUint64(0, true));
    case 'sfixed64':
      return Number(r.fixed64().getBigInt64(0, true));
    default:
      throw new ProtobufError(`proto: unsupported scalar type ${type}`);
  }
}

/** Decodes a message field's bytes: a special apimachinery type, or a generated message. */
function decodeAny(type: string, buf: Uint8Array, start: number, end: number, depth: number): unknown {
  switch (type) {
    case SPECIAL.time:
      return decodeTimestamp(buf, start, end, false);
    case SPECIAL.microTime:
      return decodeTimestamp(buf, start, end, true);
    case SPECIAL.duration:
      return formatDuration((readFields(buf, start, end, { 1: 'int64' })[1] as number | undefined) ?? 0);
    case SPECIAL.quantity:
      // An empty Quantity is zero, which upstream's MarshalJSON writes as "0".
      return (readFields(buf, start, end, { 1: 'string' })[1] as string | undefined) || '0';
    case SPECIAL.intOrString: {
      const f = readFields(buf, start, end, { 1: 'int64', 2: 'int32', 3: 'string' });
      return f[1] === 1 ? (f[3] ?? '') : (f[2] ?? 0);
    }
    case SPECIAL.fieldsV1:
      return rawJSON(readRaw(buf, start, end), depth);
    case SPECIAL.rawExtension:
      return rawJSON(readRaw(buf, start, end), depth);
    default:
      return decodeMessage(type, buf, start, end, depth);
  }
}

/** Reads the listed scalar fields of a small message, skipping the rest. */
function readFields(
  buf: Uint8Array,
  start: number,
  end: number,
  types: Record<number, string>,
): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  const r = new WireReader(buf, start, end);
  while (!r.done()) {
    const { field, wire } = r.key();
    const t = types[field];
    if (t === undefined) {
      r.skip(wire);
      continue;
    }
    expectWire(wire, SCALAR_WIRE[t]!, 'field', String(field));
    out[field] = readScalar(r, t);
  }
  return out;
}

function readRaw(buf: Uint8Array, start: number, end: number): Uint8Array | undefined {
  const r = new WireReader(buf, start, end);
  let raw: Uint8Array | undefined;
  while (!r.done()) {
    const { field, wire } = r.key();
    if (field === 1 && wire === WIRE.bytes) {
      const [s, e] = r.lengthDelimited();
      raw = buf.subarray(s, e);
    } else r.skip(wire);
  }
  return raw;
}

/** Raw bytes that hold JSON (FieldsV1, RawExtension), or a nested protobuf object; empty is null, as upstream's MarshalJSON. */
function rawJSON(raw: Uint8Array | undefined, depth: number): unknown {
  if (raw === undefined || raw.length === 0) return null;
  if (
    raw.length >= 4 &&
    raw[0] === 0x6b &&
    raw[1] === 0x38 &&
    raw[2] === 0x73 &&
    raw[3] === 0 &&
    nested.decodeEnvelope !== undefined
  ) {
    return nested.decodeEnvelope(raw, depth + 1);
  }
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8'));
  } catch {
    throw new ProtobufError('proto: an embedded raw object is neither JSON nor Kubernetes protobuf');
  }
}

/**
 * metav1.Time and MicroTime: a Timestamp {seconds, nanos}. Empty is the zero time, which
 * upstream writes as null; otherwise RFC 3339 in UTC, to the second (Time) or microsecond (MicroTime).
 */
function decodeTimestamp(buf: Uint8Array, start: number, end: number, micro: boolean): string | null {
  if (start === end) return null;
  const f = readFields(buf, start, end, { 1: 'int64', 2: 'int32' });
  const seconds = (f[1] as number | undefined) ?? 0;
  const nanos = (f[2] as number | undefined) ?? 0;
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw new ProtobufError(`proto: timestamp out of range: ${seconds}`);
  const base = d.toISOString().slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** Go's time.Duration.String(): "1h2m3.5s", "1.5ms", "0s". */
export function formatDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let n = Math.abs(ns);
  if (n < 1e3) return `${sign}${n}ns`;
  if (n < 1e6) return `${sign}${fraction(n, 1e3)}µs`;
  if (n < 1e9) return `${sign}${fraction(n, 1e6)}ms`;
  const h = Math.floor(n / 3.6e12);
  n -= h * 3.6e12;
  const m = Math.floor(n / 6e10);
  n -= m * 6e10;
  const s = fraction(n, 1e9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/** `n / unit` with the fraction's trailing zeros trimmed, exactly (no float rounding). */
function fraction(n: number, unit: number): string {
  const whole = Math.floor(n / unit);
  const rest = n - whole * unit;
  if (rest === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}
