/**
 * The strategy of a custom resource, like apiextensions-apiserver's
 * customResourceStrategy: defaults from the schema, unknown fields reported
 * (and pruned) by field validation, metadata, schema and CEL validation in one
 * error list, generation tracking, and status kept apart when the version
 * serves /status.
 */
import {
  newStatusError,
  applySchemaDefaults,
  crdPatchSchema,
  evaluateRules,
  metadataUnknownFields,
  nameIsDNSSubdomain,
  rulesFor,
  unknownFieldPaths,
  validateAgainstSchema,
  validation,
  type CustomResourceDefinitionVersion,
  type ErrorList,
  type JSONSchemaProps,
  type ObjectMeta,
  type ResourceInfo,
} from '../../api/index.js';
import type { Obj } from '../object.js';
import type { Strategy } from '../registry/strategy.js';

const EMPTY_SCHEMA: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** The strategy of one served version of a CRD; `terminating` tells whether the CRD is being deleted. */
export function customResourceStrategy(
  info: ResourceInfo,
  version: CustomResourceDefinitionVersion,
  terminating: () => boolean = () => false,
): Strategy {
  const schema = version.schema?.openAPIV3Schema ?? EMPTY_SCHEMA;
  const rules = rulesFor(schema);
  const m = (o: Obj): ObjectMeta | undefined => o.metadata as ObjectMeta | undefined;
  const content = (o: Obj, old: Obj | undefined): ErrorList => [
    ...validateAgainstSchema(schema, o),
    ...evaluateRules(schema, rules, o, old),
  ];
  const update = (o: Obj, old: Obj): ErrorList => [
    ...validation.validateObjectMetaUpdate(m(o), m(old)),
    ...content(o, old),
  ];
  return {
    hasStatusSubresource: version.subresources?.status !== undefined,
    keepsStatusOnCreate: false,
    tracksGeneration: true,
    allowCreateOnUpdate: false,
    alwaysHasSpec: false,
    alwaysHasStatus: false,
    applyDefaults: (o) => applySchemaDefaults(schema, o),
    // Like upstream's crdHandler, no new objects while the CRD's cleanup deletes the old ones.
    prepareForCreate: () => {
      if (terminating())
        throw newStatusError(
          405,
          'MethodNotAllowed',
          'create not allowed while custom resource definition is terminating',
        );
    },
    unknownFields: (o) => [...metadataUnknownFields(o), ...unknownFieldPaths(schema, o)],
    patchSchema: crdPatchSchema(schema),
    validate: (o) => [
      ...validation.validateObjectMeta(m(o), info.namespaced, nameIsDNSSubdomain),
      ...content(o, undefined),
    ],
    validateUpdate: update,
    validateStatusUpdate: update,
  };
}
