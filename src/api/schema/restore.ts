/**
 * The type errors upstream's unstructured-to-typed conversion
 * (runtime.DefaultUnstructuredConverter.FromUnstructured) reports when a
 * patched object has a value of the wrong shape where its type wants a map, a
 * struct or a list, e.g. `cannot restore map from string` for labels given as
 * a string. Written by hand: the texts must be upstream's, which kubectl's own
 * tests match.
 */
import { isObject } from '../types.js';
import { DEFINITIONS, definitionName } from './index.js';
import { SCALAR_DEFS, type Schema } from './dsl.js';

/** The first conversion error in `obj` of kind `kind` (group `group`), or undefined when every map, struct and list has its shape. */
export function findRestoreError(group: string, kind: string, obj: unknown, version?: string): string | undefined {
  const name = definitionName(group, kind, version);
  return name === undefined ? undefined : check(DEFINITIONS[name], obj);
}

function check(schema: Schema, value: unknown): string | undefined {
  const s = resolve(schema);
  if (s === null || value === null || value === undefined) return undefined;
  if (s.type === 'array') {
    // A []byte travels as a base64 string; no schema here says so, and none is an array of bytes.
    if (!Array.isArray(value)) return `cannot restore slice from ${goKind(value)}`;
    for (const v of value) {
      const e = check(s.items as Schema, v);
      if (e !== undefined) return e;
    }
    return undefined;
  }
  if (s.type !== 'object') return undefined;
  const props = s.properties as Record<string, Schema> | undefined;
  const extra = isObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  if (props === undefined && extra === undefined) return undefined; // free-form JSON
  if (!isObject(value))
    return props !== undefined
      ? `cannot restore struct from: ${goKind(value)}`
      : `cannot restore map from ${goKind(value)}`;
  for (const k in value) {
    const sub = props !== undefined ? (Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined) : extra;
    if (sub === undefined) continue;
    const e = check(sub, value[k]);
    if (e !== undefined) return e;
  }
  return undefined;
}

function resolve(schema: Schema): Schema | null {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return SCALAR_DEFS[name] ? null : (DEFINITIONS[name] ?? null);
}

// The reflect.Kind of a decoded JSON value in an unstructured object.
function goKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return 'slice';
  return 'map';
}

/** A JSON value printed as Go's `%+v` prints it once decoded (maps with sorted keys: `map[a:1 b:[x y]]`). */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObject(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goFormat(v[k])}`)
      .join(' ')}]`;
  return String(v as string | number | boolean);
}
