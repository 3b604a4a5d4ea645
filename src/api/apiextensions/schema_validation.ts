/**
 * Validation of custom objects against their CRD version's structural schema,
 * as apiextensions-apiserver's pkg/apiserver/validation: the schema is turned
 * into JSON Schema for ajv (nullable, boolean exclusive bounds,
 * x-kubernetes-int-or-string, x-kubernetes-embedded-resource) and compiled
 * once; every failure becomes a field error with kube-openapi's texts, so one
 * 422 lists them all.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JSONSchemaProps } from '../types/index.js';
import {
  child,
  duplicate,
  index,
  invalidValue,
  key,
  notSupported,
  required,
  tooLong,
  tooMany,
  type ErrorList,
  type FieldError,
} from '../validation/index.js';

const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, logger: false, validateSchema: false }));
const compiled = new WeakMap<JSONSchemaProps, ValidateFunction>();

/** Field errors of `obj` (a whole custom object) against its version's schema; metadata is validated elsewhere. */
export function validateAgainstSchema(schema: JSONSchemaProps, obj: unknown): ErrorList {
  let fn = compiled.get(schema);
  if (fn === undefined) {
    const root = toJSONSchema(schema);
    // The root's metadata is ObjectMeta, validated as every kind's; its name rules are value validations only.
    if (root.properties !== undefined) delete (root.properties as Record<string, unknown>).metadata;
    fn = ajv.compile(root);
    compiled.set(schema, fn);
  }
  if (fn(obj)) return [];
  return (fn.errors ?? []).map((e) => toFieldError(e, obj)).filter((e): e is FieldError => e !== undefined);
}

/** The value validations that mean the same in OpenAPI v3 and in JSON Schema, copied as they are. */
export const VALUE_KEYWORDS = [
  'format',
  'enum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
] as const;

/** The JSON Schema (draft 7, as ajv reads it) of a structural OpenAPI v3 schema. */
function toJSONSchema(s: JSONSchemaProps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of VALUE_KEYWORDS) if (s[k] !== undefined) out[k] = s[k];
  if (s.maximum !== undefined) out[s.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = s.maximum;
  if (s.minimum !== undefined) out[s.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = s.minimum;
  let type: string | string[] | undefined = s.type;
  if (s['x-kubernetes-int-or-string'] === true) type = ['integer', 'string'];
  if (type !== undefined && s.nullable === true) type = [...(Array.isArray(type) ? type : [type]), 'null'];
  if (type !== undefined) out.type = type;
  if (s.enum !== undefined && s.nullable === true) out.enum = [...s.enum, null];
  if (s.properties !== undefined) {
    const props: Record<string, unknown> = {};
    for (const [n, p] of Object.entries(s.properties)) props[n] = toJSONSchema(p);
    out.properties = props;
  }
  if (typeof s.additionalProperties === 'object') out.additionalProperties = toJSONSchema(s.additionalProperties);
  if (s.items !== undefined) out.items = toJSONSchema(s.items);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    // int-or-string's anyOf of the two types is structure, not a value validation: the type above covers it.
    if (s[k] !== undefined && !(s['x-kubernetes-int-or-string'] === true && k === 'anyOf'))
      out[k] = s[k]!.map(toJSONSchema);
  }
  if (s.not !== undefined) out.not = toJSONSchema(s.not);
  if (s['x-kubernetes-embedded-resource'] === true) {
    // An embedded object is a whole Kubernetes object: it names its apiVersion and kind.
    out.required = [...new Set([...((out.required as string[] | undefined) ?? []), 'apiVersion', 'kind'])];
    const props = (out.properties ?? {}) as Record<string, unknown>;
    props.apiVersion ??= { type: 'string' };
    props.kind ??= { type: 'string' };
    props.metadata ??= { type: 'object' };
    out.properties = props;
  }
  return out;
}

/** `spec.items[0].name` for ajv's `/spec/items/0/name`, indices in brackets where the value is a list. */
function fieldPath(pointer: string, obj: unknown): string {
  if (pointer === '') return '';
  let path = '';
  let cur: unknown = obj;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      path = index(path, Number(seg));
      cur = cur[Number(seg)];
    } else {
      const parentIsMap = cur !== null && typeof cur === 'object' && /[^A-Za-z0-9_-]/.test(seg);
      path = parentIsMap ? key(path, seg) : child(path, seg);
      cur = (cur as Record<string, unknown> | undefined)?.[seg];
    }
  }
  return path;
}

function valueAt(pointer: string, obj: unknown): unknown {
  let cur = obj;
  if (pointer === '') return cur;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = (cur as Record<string, unknown> | undefined)?.[seg];
  }
  return cur;
}

const goType = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;

/** One ajv error as kube-openapi words it ("spec.replicas in body must be of type integer: \"string\""). */
function toFieldError(e: ErrorObject, obj: unknown): FieldError | undefined {
  const field = fieldPath(e.instancePath, obj);
  const v = valueAt(e.instancePath, obj);
  const f = field === '' ? '<root>' : field;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return required(child(field, String(p.missingProperty)));
    case 'type': {
      const want = Array.isArray(p.type) ? (p.type as string[]).join(',') : String(p.type);
      return invalidValue(f, goType(v), `${f} in body must be of type ${want}: "${goType(v)}"`);
    }
    case 'enum':
      return notSupported(
        f,
        v,
        ((p.allowedValues as unknown[]) ?? []).map((x) => String(x)),
      );
    case 'maximum':
      return invalidValue(f, v, `${f} in body should be less than or equal to ${String(p.limit)}`);
    case 'exclusiveMaximum':
      return invalidValue(f, v, `${f} in body should be less than ${String(p.limit)}`);
    case 'minimum':
      return invalidValue(f, v, `${f} in body should be greater than or equal to ${String(p.limit)}`);
    case 'exclusiveMinimum':
      return invalidValue(f, v, `${f} in body should be greater than ${String(p.limit)}`);
    case 'multipleOf':
      return invalidValue(f, v, `${f} in body should be a multiple of ${String(p.multipleOf)}`);
    case 'pattern':
      return invalidValue(f, v, `${f} in body should match '${String(p.pattern)}'`);
    case 'format':
      return invalidValue(f, v, `${f} in body must be of type ${String(p.format)}: ${JSON.stringify(v)}`);
    case 'maxLength':
      return tooLong(f, Number(p.limit));
    case 'minLength':
      return invalidValue(f, v, `${f} in body should be at least ${String(p.limit)} chars long`);
    case 'maxItems':
      return tooMany(f, Array.isArray(v) ? v.length : 0, Number(p.limit));
    case 'minItems':
      return invalidValue(f, v, `${f} in body should have at least ${String(p.limit)} items`);
    case 'uniqueItems':
      return duplicate(f, Array.isArray(v) ? v[Number(p.j)] : v);
    case 'maxProperties':
      return tooMany(f, v !== null && typeof v === 'object' ? Object.keys(v).length : 0, Number(p.limit));
    case 'minProperties':
      return invalidValue(f, v, `${f} in body should have at least ${String(p.limit)} properties`);
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
    case 'not':
      return invalidValue(f, v, `${f} in body ${e.message ?? 'is invalid'}`);
    default:
      return invalidValue(f, v, e.message ?? 'is invalid');
  }
}
