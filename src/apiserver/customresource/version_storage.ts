/**
 * A served version of a custom resource that is not its storage version, with
 * conversion None as upstream's nopConverter: only apiVersion differs. Objects
 * are stored in the storage version; the version's store writes and reads
 * through a value transformer that rewrites apiVersion in the stored bytes
 * (which always begin with kind and apiVersion, see codec.ts), so the handlers
 * and the generic store see the served version only.
 */
import type { Storage } from '../../storage/index.js';
import { PrefixTransformers, TransformingStorage } from '../../storage/value/index.js';

/** The bytes with `"apiVersion":"<from>"` (at the head of a stored object) replaced by `to`; unchanged when absent. */
export function swapAPIVersion(value: Buffer, from: string, to: string): Buffer {
  const needle = `"apiVersion":${JSON.stringify(from)}`;
  const at = value.indexOf(needle);
  if (at < 0) return value;
  return Buffer.concat([
    value.subarray(0, at),
    Buffer.from(`"apiVersion":${JSON.stringify(to)}`),
    value.subarray(at + needle.length),
  ]);
}

/**
 * `inner` seen as the served version `served` ("example.com/v1beta1") of objects stored under `prefix` in
 * the storage version `stored` ("example.com/v1"). The watch cache only takes index values (the name)
 * from a write's object, which both versions share.
 */
export function versionedStorage(inner: Storage, prefix: string, stored: string, served: string): Storage {
  const transformer = {
    toStorage: (data: Buffer) => swapAPIVersion(data, served, stored),
    fromStorage: (data: Buffer) => swapAPIVersion(data, stored, served),
  };
  const transformers = new PrefixTransformers([{ prefix: Buffer.alloc(0), transformer }]);
  return new TransformingStorage(inner, [{ prefix, transformers }]);
}
