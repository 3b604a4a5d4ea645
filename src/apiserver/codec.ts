/**
 * Objects in storage are JSON without metadata.resourceVersion, which is the
 * storage revision and is set on the way out, as upstream's etcd3 versioner
 * does. Encode once: the stored bytes always start with
 * {"kind":..,"apiVersion":..,"metadata":{ so a response can splice the
 * resourceVersion into the bytes without parsing the object again.
 */
import { ownedBuffer, type KeyValue } from '../storage/index.js';

type Obj = Record<string, unknown>;

/**
 * Serializes an object for storage, with kind, apiVersion and metadata first and no resourceVersion. The bytes
 * wait for their commit and watch event, so they own their memory (see storage/owned_buffer.ts).
 */
export function encodeForStorage(obj: Obj): Buffer {
  const { kind, apiVersion, metadata, ...rest } = obj;
  const { resourceVersion: _rv, ...meta } = (metadata ?? {}) as Obj;
  return ownedBuffer(JSON.stringify({ kind, apiVersion, metadata: meta, ...rest }), 'utf8');
}

/** The stored bytes with metadata.resourceVersion set to `rv`, without parsing (the watch cache splices the same way). */
export { spliceResourceVersion as withResourceVersion, resourceVersionParts } from '../storage/index.js';

/** Decodes a stored object and sets its resourceVersion from the key's mod revision. */
export function decode(kv: KeyValue): Obj {
  const obj = JSON.parse(kv.value.toString('utf8')) as Obj;
  const meta = (obj.metadata ?? (obj.metadata = {})) as Obj;
  meta.resourceVersion = String(kv.modRevision);
  return obj;
}
