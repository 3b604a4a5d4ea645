/**
 * The Kubernetes protobuf envelope, as k8s.io/apimachinery's
 * runtime/serializer/protobuf writes it: the magic bytes "k8s\0", then a
 * runtime.Unknown {typeMeta {apiVersion, kind}, raw, contentEncoding,
 * contentType} whose `raw` is the object's own message.
 */
import { ROOT_KINDS } from './descriptor.js';
import { decodeMessage, nested } from './decode.js';
import { ProtobufError, WIRE, WireReader } from './wire.js';

type Obj = Record<string, unknown>;

/** The 4 bytes every Kubernetes protobuf object starts with. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The media type of Kubernetes protobuf. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The envelope's parts. */
export interface Unknown {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Reads the magic and the runtime.Unknown around an object. */
export function readEnvelope(bytes: Uint8Array): Unknown {
  if (bytes.length < 4 || bytes[0] !== 0x6b || bytes[1] !== 0x38 || bytes[2] !== 0x73 || bytes[3] !== 0) {
    throw new ProtobufError(`provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`);
  }
  const out: Unknown = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  const r = new WireReader(bytes, 4);
  const text = (s: number, e: number): string =>
    Buffer.from(bytes.buffer, bytes.byteOffset + s, e - s).toString('utf8');
  while (!r.done()) {
    const { field, wire } = r.key();
    if (field < 1 || field > 4) {
      r.skip(wire);
      continue;
    }
    if (wire !== WIRE.bytes) throw new ProtobufError(`proto: wrong wireType = ${wire} for field ${field} in Unknown`);
    const [s, e] = r.lengthDelimited();
    if (field === 1) {
      const tm = new WireReader(bytes, s, e);
      while (!tm.done()) {
        const k = tm.key();
        if ((k.field === 1 || k.field === 2) && k.wire === WIRE.bytes) {
          const [ts, te] = tm.lengthDelimited();
          if (k.field === 1) out.apiVersion = text(ts, te);
          else out.kind = text(ts, te);
        } else tm.skip(k.wire);
      }
    } else if (field === 2) out.raw = bytes.subarray(s, e);
    else if (field === 3) out.contentEncoding = text(s, e);
    else out.contentType = text(s, e);
  }
  return out;
}

/**
 * Decodes a whole protobuf object body into the JSON object the same object
 * would be as JSON: kind and apiVersion first, then its fields. An unknown
 * kind, or a content encoding (upstream writes none), is an error.
 */
export function decodeProtobufObject(bytes: Uint8Array, depth = 0): Obj {
  const u = readEnvelope(bytes);
  if (u.kind === '') throw new ProtobufError(`Object 'Kind' is missing in the protobuf envelope`);
  if (u.contentEncoding !== '') throw new ProtobufError(`unsupported protobuf content encoding "${u.contentEncoding}"`);
  if (u.contentType !== '' && u.contentType !== 'application/vnd.kubernetes.protobuf') {
    throw new ProtobufError(`unsupported content type "${u.contentType}" inside the protobuf envelope`);
  }
  // Like upstream's AddToGroupVersion, DeleteOptions is registered in every group version.
  const type =
    ROOT_KINDS[`${u.apiVersion} ${u.kind}`] ??
    (u.kind === 'DeleteOptions' && u.apiVersion !== '' ? ROOT_KINDS['meta.k8s.io/v1 DeleteOptions'] : undefined);
  if (type === undefined) {
    throw new ProtobufError(`no kind "${u.kind}" is registered for version "${u.apiVersion}" in scheme`);
  }
  return { kind: u.kind, apiVersion: u.apiVersion, ...decodeMessage(type, u.raw, 0, u.raw.length, depth) };
}

nested.decodeEnvelope = decodeProtobufObject;
