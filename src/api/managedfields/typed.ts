// Schema-aware walks over plain JSON objects, like structured-merge-diff's typed package: field sets
// (ToFieldSet) and comparisons (Compare). List semantics come from the strategic patch metadata:
// associative lists are keyed `k:{…}`, sets `v:…`, everything else is atomic.
import { applyListType, EMPTY_SCHEMA, type FieldMeta, type PatchSchemaLookup } from '../strategicpatch/index.js';
import { canonicalJSON, FieldSet, type PathElement } from './fieldset.js';

/** Where a value sits in the schema: the node describing it and the metadata of the field holding it. */
export interface TypeContext {
  readonly schema: PatchSchemaLookup;
  readonly meta: FieldMeta;
}

/** The context of a root object. */
export function rootContext(schema: PatchSchemaLookup | undefined): TypeContext {
  return { schema: schema ?? EMPTY_SCHEMA, meta: {} };
}

type Obj = Record<string, unknown>;

/** True for plain JSON objects. */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A struct or map owned as a whole (`+structType=atomic` / `+mapType=atomic`). */
export function isAtomicObject(ctx: TypeContext): boolean {
  return ctx.schema.atomic || ctx.meta.mapType === 'atomic';
}

/** The context of a field of an object. */
export function fieldContext(ctx: TypeContext, name: string): TypeContext {
  const { meta, schema } = ctx.schema.field(name);
  return { schema, meta };
}

/** The context of a list's elements: the element type, with no field metadata of its own. */
export function elementContext(ctx: TypeContext): TypeContext {
  return { schema: ctx.schema, meta: {} };
}

/** List semantics for a list value in this context. */
export function listSemantics(ctx: TypeContext): ReturnType<typeof applyListType> {
  return applyListType(ctx.meta);
}

/** The path element of a list item: `k:{…}` for associative lists, `v:…` for sets, else `i:n`. */
export function itemPathElement(ctx: TypeContext, item: unknown, index: number): PathElement {
  const { listType, keys } = listSemantics(ctx);
  if (listType === 'set') return `v:${canonicalJSON(item)}`;
  if (listType === 'map' && isObj(item)) {
    const key: Obj = {};
    const defaults = ctx.meta.listMapKeyDefaults ?? {};
    for (const k of keys) {
      // Like SMD, a key field the item omits takes its schema default, so `{containerPort: 80}`
      // and the defaulted live `{containerPort: 80, protocol: TCP}` are the same item.
      const v = item[k] ?? defaults[k];
      if (v !== undefined) key[k] = v;
    }
    // An element carrying none of its keys cannot be addressed by key; SMD rejects it, we fall back to its index.
    if (Object.keys(key).length > 0) return `k:${canonicalJSON(key)}`;
  }
  return `i:${index}`;
}

/** The fields set in `value`, like SMD's ToFieldSet: the set an applier owns for its config. */
export function toFieldSet(value: unknown, ctx: TypeContext): FieldSet {
  const set = new FieldSet();
  walkFieldSet(value, ctx, [], set);
  return set;
}

function walkFieldSet(value: unknown, ctx: TypeContext, path: PathElement[], set: FieldSet): void {
  if (Array.isArray(value)) {
    if (listSemantics(ctx).listType === 'atomic') {
      set.insert(path);
      return;
    }
    const seen = new Map<PathElement, number>();
    value.forEach((item, i) => {
      const pe = itemPathElement(ctx, item, i);
      seen.set(pe, (seen.get(pe) ?? 0) + 1);
    });
    value.forEach((item, i) => {
      const pe = itemPathElement(ctx, item, i);
      set.insert([...path, pe]);
      // Duplicated items are owned as a whole, like upstream.
      if (seen.get(pe) === 1) walkFieldSet(item, elementContext(ctx), [...path, pe], set);
    });
    return;
  }
  if (isObj(value)) {
    if (isAtomicObject(ctx)) {
      set.insert(path);
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      const childPath = [...path, `f:${k}`];
      walkFieldSet(v, fieldContext(ctx, k), childPath, set);
      if (v === null || (isObj(v) && Object.keys(v).length === 0)) set.insert(childPath);
    }
    return;
  }
  set.insert(path);
}

/** Field-level differences between two versions of an object, like SMD's Comparison. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** Compares `lhs` (old) with `rhs` (new); undefined stands for an absent value. */
export function compare(lhs: unknown, rhs: unknown, ctx: TypeContext): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, ctx, [], c);
  return c;
}

function walkCompare(lhs: unknown, rhs: unknown, ctx: TypeContext, path: PathElement[], c: Comparison): void {
  const leaf = (): void => {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (canonicalJSON(lhs) !== canonicalJSON(rhs)) c.modified.insert(path);
  };
  const l = lhs;
  const r = rhs;
  const kinds = [l, r].filter((v) => v !== undefined).map((v) => (Array.isArray(v) ? 'list' : isObj(v) ? 'map' : 'scalar'));
  if (kinds.length === 2 && kinds[0] !== kinds[1]) return leaf();

  if (kinds[0] === 'list') {
    const ll = (l ?? []) as unknown[];
    const rl = (r ?? []) as unknown[];
    if (listSemantics(ctx).listType === 'atomic' || (ll.length === 0 && rl.length === 0)) return leaf();
    const lItems = indexItems(ll, ctx);
    const rItems = indexItems(rl, ctx);
    for (const pe of new Set([...lItems.keys(), ...rItems.keys()])) {
      walkCompare(lItems.get(pe), rItems.get(pe), elementContext(ctx), [...path, pe], c);
    }
  } else if (kinds[0] === 'map') {
    const lm = (l ?? {}) as Obj;
    const rm = (r ?? {}) as Obj;
    if (isAtomicObject(ctx) || (Object.keys(lm).length === 0 && Object.keys(rm).length === 0)) return leaf();
    for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
      walkCompare(lm[k], rm[k], fieldContext(ctx, k), [...path, `f:${k}`], c);
    }
  } else {
    return leaf();
  }
  // A container that appears or disappears is itself added or removed, except fields upstream
  // always serializes (non-pointer structs, lists without omitempty), which it never sees appear.
  if (ctx.meta.alwaysSerialized) return;
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

/** List items by path element; the first of duplicated items wins. */
export function indexItems(list: readonly unknown[], ctx: TypeContext): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const pe = itemPathElement(ctx, item, i);
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}
