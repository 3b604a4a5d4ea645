/**
 * The public surface of src/api: types, the resource registry and discovery,
 * selectors, metadata helpers, Status errors, defaulting, admission helpers,
 * validation and schemas. Other components import from here only.
 */
export * from './types.js';
export * from './types/index.js';
export * from './taints.js';
export { compileTerm, compileTerms, type SelectableNode } from './node_selector.js';
export { podReferencedNames, type PodReferencedNames } from './pod_refs.js';
export * from './status.js';
export * from './registry.js';
export * from './apiextensions/index.js';
export * from './discovery.js';
export * from './labels.js';
export * from './fields.js';
export * from './selectable.js';
export * from './meta.js';
export * from './quantity.js';
export { parseDuration } from './duration.js';
export { isValidTimeZone, parseCronSchedule, type CronSchedule } from './cron.js';
export * from './defaults.js';
export * from './storage_helper.js';
export * from './autoscaling_conversion.js';
export * from './admission.js';
export {
  validateCreate,
  validateUpdate,
  validateStatusUpdate,
  throwIfInvalid,
  toInvalidError,
  errorBody,
  errorString,
  semanticEqual,
  type FieldError,
  type FieldErrorType,
  type ErrorList,
} from './validation/index.js';
/** Every validator and field-error constructor, namespaced to keep names like `forbidden` apart from the Status ones. */
export * as validation from './validation/index.js';
export { podQOSClass } from './qos.js';
export {
  DEFINITIONS,
  definitionName,
  findUnknownFields,
  strictDecodingError,
  unknownFieldWarnings,
  openapiV2Definitions,
  openapiV3Document,
} from './schema/index.js';
export { decodeProtobufObject, ProtobufError, PROTOBUF_MEDIA_TYPE } from './protobuf/index.js';
export {
  applyMergePatch,
  applyStrategicMergePatch,
  deepCopy,
  patchSchemaFor,
  patchSchemaForObject,
  type PatchSchemaLookup,
} from './strategicpatch/index.js';
export { ApplyConflictError, serverSideApply, updateManagedFields } from './managedfields/index.js';
export { findRestoreError, goFormat } from './schema/restore.js';
export * from './bootstrap_token.js';
export * from './certificates.js';
export * from './quota/index.js';
