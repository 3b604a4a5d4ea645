/** apiextensions: CustomResourceDefinition validation and the schema machinery custom objects are served with. */
export { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './crd_validation.js';
export { validateStructural } from './structural.js';
export { validateAgainstSchema } from './schema_validation.js';
export { unknownFieldPaths, applySchemaDefaults } from './pruning.js';
export { compileRules, evaluateRules, rulesFor, type CompiledRules } from './cel.js';
export { customResourceInfo, customResourcePrefix, storageVersion } from './resource_info.js';
export { crdPatchSchema } from './patch_schema.js';
export { readJSONPath } from './jsonpath.js';
export { customResourceOpenAPIV3, customDefinitionName } from './openapi.js';
export { crdUnknownFields, metadataUnknownFields } from './crd_fields.js';
