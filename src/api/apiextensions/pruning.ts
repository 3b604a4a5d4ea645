/**
 * Pruning and defaulting of custom objects by their structural schema, as
 * apiextensions-apiserver's pkg/apiserver/schema/pruning and defaulting: a
 * field the schema does not specify is dropped (unless the node preserves
 * unknown fields), and a missing property with a `default` gets it.
 */
import type { JSONSchemaProps } from '../types/index.js';
import { child, index, key } from '../validation/index.js';

/** The paths of fields `obj` has and the schema does not specify (`spec.foo`, `spec.items[0].bar`), without changing `obj`. */
export function unknownFieldPaths(schema: JSONSchemaProps, obj: unknown): string[] {
  const out: string[] = [];
  walk(schema, obj, '', out, true);
  return out;
}

function walk(s: JSONSchemaProps | undefined, v: unknown, path: string, out: string[], root: boolean): void {
  if (s === undefined || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => walk(s.items, x, index(path, i), out, false));
    return;
  }
  const o = v as Record<string, unknown>;
  const embedded = root || s['x-kubernetes-embedded-resource'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [k, x] of Object.entries(o)) {
    // apiVersion, kind and metadata of the object (and of an embedded one) are always known.
    if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const ps = s.properties?.[k];
    if (ps !== undefined) {
      walk(ps, x, child(path, k), out, false);
      continue;
    }
    if (typeof s.additionalProperties === 'object') {
      walk(s.additionalProperties, x, /^[A-Za-z0-9_-]+$/.test(k) ? child(path, k) : key(path, k), out, false);
      continue;
    }
    if (preserve || s.additionalProperties === true) continue;
    out.push(child(path, k));
  }
}

/** Applies the schema's `default`s to missing properties, in place, parents before children. */
export function applySchemaDefaults(s: JSONSchemaProps | undefined, v: unknown): void {
  if (s === undefined || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) applySchemaDefaults(s.items, x);
    return;
  }
  const o = v as Record<string, unknown>;
  for (const [k, ps] of Object.entries(s.properties ?? {})) {
    if (o[k] === undefined && ps.default !== undefined) o[k] = structuredClone(ps.default);
    applySchemaDefaults(ps, o[k]);
  }
  if (typeof s.additionalProperties === 'object')
    for (const x of Object.values(o)) applySchemaDefaults(s.additionalProperties, x);
}
