/**
 * A served version of a built-in resource that is not its storage version
 * (autoscaling/v1 HorizontalPodAutoscalers over stored autoscaling/v2): a
 * value transformer converts each object on its way to and from storage, so
 * the handlers and the generic store see the served version only, as
 * upstream's codec converts between the storage and the request version.
 */
import type { Storage } from '../../storage/index.js';
import { PrefixTransformers, TransformingStorage } from '../../storage/value/index.js';
import { encodeForStorage } from '../codec.js';
import type { VersionConversion } from './resource.js';

type Obj = Record<string, unknown>;

/** `inner` seen through `conversion` for the keys under `prefix`. */
export function convertedStorage(inner: Storage, prefix: string, conversion: VersionConversion): Storage {
  const via = (f: (o: Obj) => Obj) => (data: Buffer) => encodeForStorage(f(JSON.parse(data.toString('utf8')) as Obj));
  const transformer = {
    toStorage: via((o) => conversion.toStored(o)),
    fromStorage: via((o) => conversion.fromStored(o)),
  };
  const transformers = new PrefixTransformers([{ prefix: Buffer.alloc(0), transformer }]);
  return new TransformingStorage(inner, [{ prefix, transformers }]);
}
