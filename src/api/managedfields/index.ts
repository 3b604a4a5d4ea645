// Server-side apply and managed fields, as upstream's apimachinery fieldmanager over
// structured-merge-diff: field sets in FieldsV1 form, apply with conflicts, Update ownership.
export {
  serverSideApply,
  updateManagedFields,
  type FieldManagerOptions,
  type FieldManagerResult,
} from './fieldmanager.js';
export { ApplyConflictError, printManager, type FieldConflict } from './conflicts.js';
export { decodeManagedFields, encodeManagedFields, type ManagedFieldsEntry, type ManagerState } from './managers.js';
export { FieldSet, pathToString, type FieldPath, type PathElement } from './fieldset.js';
export { compare, rootContext, toFieldSet, type Comparison, type TypeContext } from './typed.js';
