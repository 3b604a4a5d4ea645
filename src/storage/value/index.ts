/** Encryption at rest: value transformers and the Storage decorator that applies them (upstream's storage/value). */
export { aesCBCTransformer, aesGCMTransformer } from './aes.js';
export { secretboxTransformer } from './secretbox.js';
export {
  encryptionPrefix,
  identityTransformer,
  PrefixTransformers,
  type PrefixTransformer,
  type ReadValue,
  type ValueTransformer,
} from './transformer.js';
export { TransformingStorage, type TransformerRoute } from './transforming_storage.js';
