// The patch metadata of every built-in kind, as one type table plus per-GVK lookups.
import { TypeTableSchema, type FieldMeta, type PatchSchemaLookup, type TypeTable } from './schema.js';
import { CORE_TYPES } from './types_core.js';
import { KIND_ROOT_TYPES, WORKLOAD_TYPES } from './types_workloads.js';

/**
 * Every named type with patch metadata; kinds' root types are keyed by GVK (`apps/v1/Deployment`).
 * OpenAPI generation can emit x-kubernetes-patch-strategy / list-type extensions from it.
 */
export const PATCH_TYPES: TypeTable = Object.freeze({ ...CORE_TYPES, ...WORKLOAD_TYPES, ...KIND_ROOT_TYPES });

/** The GVKs (`<apiVersion>/<Kind>`) that have strategic merge patch metadata. */
export const PATCH_KINDS: readonly string[] = Object.freeze(Object.keys(KIND_ROOT_TYPES));

/** Patch schema of a kind, or undefined for kinds without metadata (e.g. custom resources). */
export function patchSchemaFor(apiVersion: string, kind: string): PatchSchemaLookup | undefined {
  const gvk = `${apiVersion}/${kind}`;
  return KIND_ROOT_TYPES[gvk] ? new TypeTableSchema(PATCH_TYPES, gvk) : undefined;
}

/** Patch schema of an object from its apiVersion and kind, or undefined when unknown. */
export function patchSchemaForObject(obj: object): PatchSchemaLookup | undefined {
  const o = obj as { apiVersion?: unknown; kind?: unknown };
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') return undefined;
  return patchSchemaFor(o.apiVersion, o.kind);
}

/**
 * Flattens a kind's metadata into field paths, e.g. `spec.template.spec.containers` and
 * `spec.template.spec.containers[].env`; only fields with metadata are listed.
 */
export function patchMetaByPath(gvk: string): Record<string, FieldMeta> {
  const out: Record<string, FieldMeta> = {};
  const walk = (typeName: string, prefix: string, depth: number): void => {
    const t = PATCH_TYPES[typeName];
    // The k8s types we model are acyclic; the depth cap guards against a future recursive type.
    if (!t || depth > 12) return;
    for (const [name, meta] of Object.entries(t.fields)) {
      const path = prefix === '' ? name : `${prefix}.${name}`;
      out[path] = meta;
      if (meta.type === undefined) continue;
      const isList = meta.patchMergeKey !== undefined || meta.listType !== undefined;
      walk(meta.type, isList ? `${path}[]` : path, depth + 1);
    }
  };
  walk(gvk, '', 0);
  return out;
}
