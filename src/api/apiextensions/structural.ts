/**
 * The structural-schema check of apiextensions-apiserver (pkg/apiserver/schema,
 * validateStructuralInvariants and friends): every specified node has a type,
 * objects declare their properties or additionalProperties (not both), arrays
 * their items, value validations under allOf/anyOf/oneOf/not carry no type,
 * default, nullable or descriptions, and the root's metadata may only restrict
 * name and generateName. A schema that fails gives one cause per node.
 */
import type { JSONSchemaProps } from '../types/index.js';
import {
  child,
  forbidden,
  index,
  invalidValue,
  key,
  notSupported,
  required,
  type ErrorList,
} from '../validation/index.js';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
/** What a value-validation branch (allOf, anyOf, oneOf, not) may not specify, as upstream's ValueValidation. */
const STRUCTURE_ONLY: (keyof JSONSchemaProps)[] = [
  'type',
  'default',
  'nullable',
  'description',
  'title',
  'additionalProperties',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
];

/** Field errors of a structural schema at `path` (…openAPIV3Schema); [] when it is structural. */
export function validateStructural(schema: JSONSchemaProps, path: string): ErrorList {
  const errs: ErrorList = [];
  if (schema.type !== 'object') {
    errs.push(
      schema.type === undefined
        ? required(child(path, 'type'), 'must not be empty at the root')
        : invalidValue(child(path, 'type'), schema.type, 'must be object at the root'),
    );
  }
  walk(schema, path, errs, true);
  const metadata = schema.properties?.metadata;
  if (metadata !== undefined) {
    const mp = key(child(path, 'properties'), 'metadata');
    for (const [name] of Object.entries(metadata.properties ?? {})) {
      if (name !== 'name' && name !== 'generateName')
        errs.push(forbidden(key(child(mp, 'properties'), name), 'must not be specified'));
    }
    if (metadata.type !== undefined && metadata.type !== 'object')
      errs.push(invalidValue(child(mp, 'type'), metadata.type, 'must be object'));
  }
  return errs;
}

function walk(s: JSONSchemaProps, path: string, errs: ErrorList, root: boolean): void {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) {
    errs.push(invalidValue(path, s, 'must be an object'));
    return;
  }
  if (s.$ref !== undefined) errs.push(forbidden(child(path, '$ref'), '$ref is not allowed in structural schemas'));
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false)
    errs.push(invalidValue(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (s.type === undefined) {
    if (!intOrString && preserve !== true && !root)
      errs.push(required(child(path, 'type'), 'must not be empty for specified object fields'));
  } else if (!TYPES.includes(s.type)) {
    errs.push(notSupported(child(path, 'type'), s.type, TYPES));
  }
  if (intOrString) {
    if (s.type !== undefined)
      errs.push(invalidValue(child(path, 'type'), s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  }
  if (s['x-kubernetes-embedded-resource'] === true && s.type !== 'object')
    errs.push(
      invalidValue(child(path, 'type'), s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'),
    );
  if (s.properties !== undefined && s.additionalProperties !== undefined && s.additionalProperties !== false)
    errs.push(
      forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
    );
  if (s.type === 'array' && s.items === undefined) errs.push(required(child(path, 'items'), 'must be specified'));
  if (s.type !== undefined && s.type !== 'array' && s.items !== undefined)
    errs.push(forbidden(child(path, 'items'), 'must be empty unless type is array'));
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (s.type !== 'array')
      errs.push(
        invalidValue(child(path, 'type'), s.type ?? '', 'must be array if x-kubernetes-list-type is specified'),
      );
    if (!['atomic', 'set', 'map'].includes(listType))
      errs.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
    if (listType === 'map' && (s['x-kubernetes-list-map-keys'] ?? []).length === 0)
      errs.push(
        required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
      );
    if (listType === 'map' && s.items?.type !== 'object')
      errs.push(
        invalidValue(
          child(path, 'items', 'type'),
          s.items?.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
  }
  for (const [name, p] of Object.entries(s.properties ?? {}))
    walk(p, key(child(path, 'properties'), name), errs, false);
  if (s.additionalProperties !== undefined && typeof s.additionalProperties === 'object')
    walk(s.additionalProperties, child(path, 'additionalProperties'), errs, false);
  if (s.items !== undefined) walk(s.items, child(path, 'items'), errs, false);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    (s[k] ?? []).forEach((v, i) => valueValidation(v, index(child(path, k), i), errs, intOrString));
  }
  if (s.not !== undefined) valueValidation(s.not, child(path, 'not'), errs);
}

/** A branch of allOf/anyOf/oneOf/not: value validations only (int-or-string's anyOf of types is the one exception upstream allows). */
function valueValidation(s: JSONSchemaProps, path: string, errs: ErrorList, intOrString = false): void {
  if (s === null || typeof s !== 'object') return;
  for (const f of STRUCTURE_ONLY) {
    if (s[f] === undefined) continue;
    if (f === 'type' && intOrString && (s.type === 'integer' || s.type === 'string')) continue;
    errs.push(forbidden(child(path, f), 'must be empty to be structural'));
  }
  for (const [name, p] of Object.entries(s.properties ?? {}))
    valueValidation(p, key(child(path, 'properties'), name), errs);
  if (s.items !== undefined) valueValidation(s.items, child(path, 'items'), errs);
}
