// Patch metadata model: per named type, the fields whose merge behaviour differs from the default.
// One table serves strategic merge patch (patchStrategy/patchMergeKey struct tags) and server-side
// apply (+listType/+listMapKey/+mapType/+structType markers), as upstream derives both from k8s.io/api.

/** Merge metadata of one field, mirroring upstream's struct tags and OpenAPI list markers. */
export interface FieldMeta {
  /** Named type of the value: the struct itself, the list element, or the map value. */
  readonly type?: string;
  /** `patchStrategy` tag: "merge", "replace", "retainKeys" or "merge,retainKeys". */
  readonly patchStrategy?: string;
  /** `patchMergeKey` tag: the element field that identifies list items in a strategic merge. */
  readonly patchMergeKey?: string;
  /** `+listType` marker (x-kubernetes-list-type) used by server-side apply. */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** `+listMapKey` markers (x-kubernetes-list-map-keys), in declaration order. */
  readonly listMapKeys?: readonly string[];
  /** Defaults of list-map key fields (`+default` on the element type), used when an item omits them. */
  readonly listMapKeyDefaults?: Readonly<Record<string, unknown>>;
  /** `+mapType` marker for map[string]T fields; atomic maps are owned as one field. */
  readonly mapType?: 'atomic' | 'granular';
  /**
   * Upstream always serializes this field (a non-pointer struct, or a list without omitempty such as
   * PodSpec.containers), so managed-fields comparisons never see the field itself appear.
   */
  readonly alwaysSerialized?: boolean;
}

/** Merge metadata of one named type. */
export interface TypeMeta {
  /** Fields with non-default behaviour; other fields merge as plain maps/replaced lists. */
  readonly fields: Readonly<Record<string, FieldMeta>>;
  /** `+structType=atomic`: server-side apply owns the whole struct as a single field. */
  readonly structType?: 'atomic';
}

/** A table of named types, like the definitions section of upstream's OpenAPI document. */
export type TypeTable = Readonly<Record<string, TypeMeta>>;

/** Resolved metadata of one field plus the schema of its value (element type for lists). */
export interface FieldLookup {
  readonly meta: FieldMeta;
  readonly schema: PatchSchemaLookup;
}

/** Walks patch metadata by field name, like upstream's LookupPatchMeta. */
export interface PatchSchemaLookup {
  /** The named type this node describes, or "" when unknown. */
  readonly name: string;
  /** True for `+structType=atomic` types. */
  readonly atomic: boolean;
  /** Metadata of a field and the schema of its value; unknown fields yield empty metadata. */
  field(name: string): FieldLookup;
}

const NO_META: FieldMeta = Object.freeze({});

/** The schema of values with no metadata: maps merge, lists replace, as RFC 7386 plus directives. */
export const EMPTY_SCHEMA: PatchSchemaLookup = Object.freeze({
  name: '',
  atomic: false,
  field: (): FieldLookup => ({ meta: NO_META, schema: EMPTY_SCHEMA }),
});

/** A PatchSchemaLookup backed by a TypeTable. */
export class TypeTableSchema implements PatchSchemaLookup {
  readonly atomic: boolean;
  private readonly meta: TypeMeta | undefined;

  /** Creates the schema node for `name` in `types`. */
  constructor(
    private readonly types: TypeTable,
    readonly name: string,
  ) {
    this.meta = types[name];
    this.atomic = this.meta?.structType === 'atomic';
  }

  /** Looks up a field; its value schema is its named type, or EMPTY_SCHEMA. */
  field(name: string): FieldLookup {
    const meta = this.meta?.fields[name] ?? NO_META;
    const schema = meta.type !== undefined ? new TypeTableSchema(this.types, meta.type) : EMPTY_SCHEMA;
    return { meta, schema };
  }
}

/** Splits a patchStrategy tag into whether it retains keys and its list/map strategy. */
export function splitPatchStrategy(tag: string | undefined): { retainKeys: boolean; strategy: string } {
  const parts = (tag ?? '').split(',').filter((s) => s !== '');
  const retainKeys = parts.includes('retainKeys');
  const rest = parts.filter((s) => s !== 'retainKeys');
  return { retainKeys, strategy: rest[0] ?? '' };
}

/**
 * The list semantics server-side apply uses: the +listType marker, else (like upstream's
 * schemaconv) a merge patchStrategy with a key is a map and without one a set; otherwise atomic.
 */
export function applyListType(meta: FieldMeta): { listType: 'atomic' | 'set' | 'map'; keys: readonly string[] } {
  if (meta.listType === 'map')
    return { listType: 'map', keys: meta.listMapKeys ?? (meta.patchMergeKey ? [meta.patchMergeKey] : []) };
  if (meta.listType !== undefined) return { listType: meta.listType, keys: [] };
  const { strategy } = splitPatchStrategy(meta.patchStrategy);
  if (strategy === 'merge')
    return meta.patchMergeKey ? { listType: 'map', keys: [meta.patchMergeKey] } : { listType: 'set', keys: [] };
  return { listType: 'atomic', keys: [] };
}
