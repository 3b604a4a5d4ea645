// Strategic merge patch and JSON merge patch, as upstream's apimachinery/pkg/util/strategicpatch,
// plus the patch metadata (merge keys, strategies, list types) of every built-in kind.
export { applyStrategicMergePatch } from './patch.js';
export { applyMergePatch, deepCopy, type JSONObject } from './mergepatch.js';
export { StrategicMergePatchError } from './errors.js';
export {
  EMPTY_SCHEMA,
  TypeTableSchema,
  applyListType,
  splitPatchStrategy,
  type FieldLookup,
  type FieldMeta,
  type PatchSchemaLookup,
  type TypeMeta,
  type TypeTable,
} from './schema.js';
export { PATCH_KINDS, PATCH_TYPES, patchMetaByPath, patchSchemaFor, patchSchemaForObject } from './registry.js';
