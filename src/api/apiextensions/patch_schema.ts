/**
 * Server-side apply's view of a CRD schema: x-kubernetes-list-type,
 * x-kubernetes-list-map-keys and x-kubernetes-map-type as the field metadata
 * the field manager merges by, as upstream builds a typed schema from the
 * structural schema of a custom resource.
 */
import type { FieldLookup, FieldMeta, PatchSchemaLookup } from '../strategicpatch/index.js';
import type { JSONSchemaProps } from '../types/index.js';

const NO_META: FieldMeta = Object.freeze({});

/** The merge metadata of a structural schema, built lazily per node. */
export function crdPatchSchema(s: JSONSchemaProps | undefined): PatchSchemaLookup {
  const fields = new Map<string, FieldLookup>();
  return {
    name: '',
    atomic: s?.['x-kubernetes-map-type'] === 'atomic',
    field(name: string): FieldLookup {
      let f = fields.get(name);
      if (f === undefined) {
        const ps =
          s?.properties?.[name] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
        f = lookupOf(ps);
        fields.set(name, f);
      }
      return f;
    },
  };
}

function lookupOf(ps: JSONSchemaProps | undefined): FieldLookup {
  if (ps === undefined) return { meta: NO_META, schema: crdPatchSchema(undefined) };
  const meta: { listType?: 'atomic' | 'set' | 'map'; listMapKeys?: string[]; mapType?: 'atomic' | 'granular' } = {};
  if (ps.type === 'array') meta.listType = ps['x-kubernetes-list-type'] ?? 'atomic';
  if (ps['x-kubernetes-list-map-keys'] !== undefined) meta.listMapKeys = ps['x-kubernetes-list-map-keys'];
  if (ps['x-kubernetes-map-type'] !== undefined) meta.mapType = ps['x-kubernetes-map-type'];
  return { meta, schema: crdPatchSchema(ps.type === 'array' ? ps.items : ps) };
}
