// Schema-aware walks over plain JSON objects, like structured-merge-diff's typed package: field sets
// (ToFieldSet) and comparisons (Compare). List semantics come from the strategic patch metadata:
// associative lists are keyed `k:{…}`, sets `v:…`, everything else is atomic.
import {
  applyListType,
  EMPTY_SCHEMA,
  TypeTableSchema,
  type FieldMeta,
  type PatchSchemaLookup,
} from '../strategicpatch/index.js';
import { fieldPathElement, FieldSet, type PathElement } from './fieldset.js';
import { canonicalJSON, jsonEqual } from './json.js';

/** Where a value sits in the schema: the node describing it and the metadata of the field holding it. */
export interface TypeContext {
  readonly schema: PatchSchemaLookup;
  readonly meta: FieldMeta;
}

type ListSemantics = ReturnType<typeof applyListType>;

// Field lookups cached per node, so a walk allocates no contexts; bounded, as map keys (labels,
// annotations) are looked up by name too.
const MAX_CACHED_FIELDS = 512;

/** A TypeContext that caches its field and element contexts and its list semantics. */
class TypeNode implements TypeContext {
  private fields: Map<string, TypeNode> | undefined;
  private elem: TypeNode | undefined;
  /** The list semantics of values in this context. */
  readonly list: ListSemantics;
  /** True for `+structType=atomic` / `+mapType=atomic`. */
  readonly atomicObject: boolean;

  constructor(
    readonly schema: PatchSchemaLookup,
    readonly meta: FieldMeta,
  ) {
    this.list = applyListType(meta);
    this.atomicObject = schema.atomic || meta.mapType === 'atomic';
  }

  field(name: string): TypeNode {
    if (this === EMPTY_NODE) return EMPTY_NODE;
    let n = this.fields?.get(name);
    if (n) return n;
    const { meta, schema } = this.schema.field(name);
    n = schema === EMPTY_SCHEMA && isEmptyMeta(meta) ? EMPTY_NODE : new TypeNode(schema, meta);
    this.fields ??= new Map();
    if (this.fields.size < MAX_CACHED_FIELDS) this.fields.set(name, n);
    return n;
  }

  element(): TypeNode {
    if (this.schema === EMPTY_SCHEMA) return EMPTY_NODE;
    return (this.elem ??= new TypeNode(this.schema, {}));
  }
}

function isEmptyMeta(meta: FieldMeta): boolean {
  for (const _ in meta) return false;
  return true;
}

const EMPTY_NODE = new TypeNode(EMPTY_SCHEMA, {});
const roots = new WeakMap<PatchSchemaLookup, TypeNode>();
// patchSchemaFor returns a new TypeTableSchema per call, and the API server asks per request; a
// TypeTableSchema is a function of its table and type name only, so contexts are shared per kind.
const kindRoots = new WeakMap<object, Map<string, TypeNode>>();

function node(ctx: TypeContext): TypeNode {
  return ctx instanceof TypeNode ? ctx : new TypeNode(ctx.schema, ctx.meta);
}

/** The context of a root object; contexts below it are cached for the life of `schema`. */
export function rootContext(schema: PatchSchemaLookup | undefined): TypeContext {
  if (schema === undefined || schema === EMPTY_SCHEMA) return EMPTY_NODE;
  if (schema instanceof TypeTableSchema) {
    const table = (schema as unknown as { types: object }).types;
    let byName = kindRoots.get(table);
    if (!byName) kindRoots.set(table, (byName = new Map()));
    let n = byName.get(schema.name);
    if (!n) byName.set(schema.name, (n = new TypeNode(schema, {})));
    return n;
  }
  let n = roots.get(schema);
  if (!n) roots.set(schema, (n = new TypeNode(schema, {})));
  return n;
}

type Obj = Record<string, unknown>;

/** True for plain JSON objects. */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A struct or map owned as a whole (`+structType=atomic` / `+mapType=atomic`). */
export function isAtomicObject(ctx: TypeContext): boolean {
  return node(ctx).atomicObject;
}

/** The context of a field of an object. */
export function fieldContext(ctx: TypeContext, name: string): TypeContext {
  return node(ctx).field(name);
}

/** The context of a list's elements: the element type, with no field metadata of its own. */
export function elementContext(ctx: TypeContext): TypeContext {
  return node(ctx).element();
}

/** List semantics for a list value in this context. */
export function listSemantics(ctx: TypeContext): ListSemantics {
  return node(ctx).list;
}

/** The path element of a list item: `k:{…}` for associative lists, `v:…` for sets, else `i:n`. */
export function itemPathElement(ctx: TypeContext, item: unknown, index: number): PathElement {
  const n = node(ctx);
  const { listType, keys } = n.list;
  if (listType === 'set') return `v:${canonicalJSON(item)}`;
  if (listType === 'map' && isObj(item)) {
    const defaults = n.meta.listMapKeyDefaults;
    // Like SMD, a key field the item omits takes its schema default, so `{containerPort: 80}`
    // and the defaulted live `{containerPort: 80, protocol: TCP}` are the same item.
    if (keys.length === 1) {
      const k = keys[0];
      const v = item[k] ?? defaults?.[k];
      if (v !== undefined)
        return `k:{${JSON.stringify(k)}:${typeof v === 'string' ? JSON.stringify(v) : canonicalJSON(v)}}`;
    } else {
      const key: Obj = {};
      let any = false;
      for (const k of keys) {
        const v = item[k] ?? defaults?.[k];
        if (v !== undefined) {
          key[k] = v;
          any = true;
        }
      }
      if (any) return `k:${canonicalJSON(key)}`;
    }
    // An element carrying none of its keys cannot be addressed by key; SMD rejects it, we fall back to its index.
  }
  return `i:${index}`;
}

/** The fields set in `value`, like SMD's ToFieldSet: the set an applier owns for its config. */
export function toFieldSet(value: unknown, ctx: TypeContext): FieldSet {
  const set = new FieldSet();
  walkFieldSet(value, node(ctx), [], set);
  return set;
}

function walkFieldSet(value: unknown, ctx: TypeNode, path: PathElement[], set: FieldSet): void {
  if (Array.isArray(value)) {
    if (ctx.list.listType === 'atomic') {
      set.insert(path);
      return;
    }
    const pes = value.map((item, i) => itemPathElement(ctx, item, i));
    const seen = new Map<PathElement, number>();
    for (const pe of pes) seen.set(pe, (seen.get(pe) ?? 0) + 1);
    const elem = ctx.element();
    value.forEach((item, i) => {
      const pe = pes[i];
      path.push(pe);
      set.insert(path);
      // Duplicated items are owned as a whole, like upstream.
      if (seen.get(pe) === 1) walkFieldSet(item, elem, path, set);
      path.pop();
    });
    return;
  }
  if (isObj(value)) {
    if (ctx.atomicObject) {
      set.insert(path);
      return;
    }
    for (const k of Object.keys(value)) {
      const v = value[k];
      path.push(fieldPathElement(k));
      walkFieldSet(v, ctx.field(k), path, set);
      if (v === null || (isObj(v) && Object.keys(v).length === 0)) set.insert(path);
      path.pop();
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

/** Compares `lhs` (old) with `rhs` (new); undefined stands for an absent value, as does a property set to undefined. */
export function compare(lhs: unknown, rhs: unknown, ctx: TypeContext): Comparison {
  return compareValues(lhs, rhs, ctx).comparison;
}

/**
 * compare, also telling whether the two values are the same JSON (canonicalJSON equal), which a
 * comparison alone cannot: reordered associative lists and duplicated items compare equal.
 */
export function compareValues(lhs: unknown, rhs: unknown, ctx: TypeContext): { comparison: Comparison; same: boolean } {
  const w = new CompareWalk();
  w.walk(lhs, rhs, node(ctx));
  const same = w.unsure ? jsonEqual(lhs, rhs) : w.same;
  return { comparison: w.c, same };
}

const LIST = 1;
const MAP = 2;
const SCALAR = 3;

function kindOf(v: unknown): number {
  return Array.isArray(v) ? LIST : typeof v === 'object' && v !== null ? MAP : SCALAR;
}

/** One comparison walk: the path is a stack, so a path is only copied where a difference is recorded. */
class CompareWalk {
  readonly c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  readonly path: PathElement[] = [];
  /** False once a difference is seen. */
  same = true;
  /** Set when `same` cannot be decided from the walk (values that are not plain JSON). */
  unsure = false;

  walk(l: unknown, r: unknown, ctx: TypeNode): void {
    // The same value (or reference) holds no differences; a property set to undefined counts as absent.
    if (l === r) return;
    const lk = l === undefined ? 0 : kindOf(l);
    const rk = r === undefined ? 0 : kindOf(r);
    const kind = lk || rk;
    if (lk !== 0 && rk !== 0 && lk !== rk) return this.leaf(l, r);
    if (kind === LIST) {
      const ll = (l ?? []) as unknown[];
      const rl = (r ?? []) as unknown[];
      if (ctx.list.listType === 'atomic' || (ll.length === 0 && rl.length === 0)) return this.leaf(l, r);
      this.walkList(ll, rl, ctx);
    } else if (kind === MAP) {
      const lm = (l ?? {}) as Obj;
      const rm = (r ?? {}) as Obj;
      if (!isPlain(lm) || !isPlain(rm)) this.unsure = true;
      const lkeys = Object.keys(lm);
      const rkeys = Object.keys(rm);
      if (ctx.atomicObject || (lkeys.length === 0 && rkeys.length === 0)) return this.leaf(l, r);
      const path = this.path;
      let shared = 0;
      for (const k of lkeys) {
        const lv = lm[k];
        let rv: unknown;
        if (Object.hasOwn(rm, k)) {
          shared++;
          rv = rm[k];
          if (rv === undefined) this.unsure = true;
        }
        if (lv === undefined) this.unsure = true;
        path.push(fieldPathElement(k));
        this.walk(lv, rv, ctx.field(k));
        path.pop();
      }
      if (shared !== rkeys.length) {
        for (const k of rkeys) {
          if (Object.hasOwn(lm, k)) continue;
          const rv = rm[k];
          if (rv === undefined) this.unsure = true;
          path.push(fieldPathElement(k));
          this.walk(undefined, rv, ctx.field(k));
          path.pop();
        }
      }
    } else {
      return this.leaf(l, r);
    }
    // A container that appears or disappears is itself added or removed, except fields upstream
    // always serializes (non-pointer structs, lists without omitempty), which it never sees appear.
    if (ctx.meta.alwaysSerialized) return;
    if (l === undefined) this.insert(this.c.added);
    else if (r === undefined) this.insert(this.c.removed);
  }

  private walkList(ll: unknown[], rl: unknown[], ctx: TypeNode): void {
    if (ll.includes(undefined) || rl.includes(undefined)) this.unsure = true;
    const lpes = ll.map((item, i) => itemPathElement(ctx, item, i));
    const rpes = rl.map((item, i) => itemPathElement(ctx, item, i));
    const elem = ctx.element();
    const path = this.path;
    // Usually both lists hold the same distinct items in the same order: compare them pairwise.
    if (samePathElements(lpes, rpes) && distinct(lpes)) {
      for (let i = 0; i < ll.length; i++) {
        path.push(lpes[i]);
        this.walk(ll[i], rl[i], elem);
        path.pop();
      }
      return;
    }
    const lItems = indexByPE(ll, lpes);
    const rItems = indexByPE(rl, rpes);
    // Items are compared by path element, so order and duplicates only show in the JSON.
    if (this.same) this.same = samePathElements(lpes, rpes) && jsonEqual(ll, rl);
    for (const [pe, item] of lItems) {
      path.push(pe);
      this.walk(item, rItems.get(pe), elem);
      path.pop();
    }
    for (const [pe, item] of rItems) {
      if (lItems.has(pe)) continue;
      path.push(pe);
      this.walk(undefined, item, elem);
      path.pop();
    }
  }

  private leaf(l: unknown, r: unknown): void {
    if (l === undefined) this.insert(this.c.added);
    else if (r === undefined) this.insert(this.c.removed);
    else if (!jsonEqual(l, r)) this.insert(this.c.modified);
  }

  private insert(set: FieldSet): void {
    set.insert(this.path);
    this.same = false;
  }
}

// True when both lists carry the same path elements in the same order.
function samePathElements(l: PathElement[], r: PathElement[]): boolean {
  if (l.length !== r.length) return false;
  for (let i = 0; i < l.length; i++) if (l[i] !== r[i]) return false;
  return true;
}

function distinct(pes: PathElement[]): boolean {
  if (pes.length < 8) {
    for (let i = 1; i < pes.length; i++) for (let j = 0; j < i; j++) if (pes[i] === pes[j]) return false;
    return true;
  }
  return new Set(pes).size === pes.length;
}

function isPlain(o: object): boolean {
  const p = Object.getPrototypeOf(o) as unknown;
  return p === Object.prototype || p === null || Array.isArray(o);
}

function indexByPE(list: readonly unknown[], pes: readonly PathElement[]): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  for (let i = 0; i < list.length; i++) if (!out.has(pes[i])) out.set(pes[i], list[i]);
  return out;
}

/** List items by path element; the first of duplicated items wins. */
export function indexItems(list: readonly unknown[], ctx: TypeContext): Map<PathElement, unknown> {
  return indexByPE(
    list,
    list.map((item, i) => itemPathElement(ctx, item, i)),
  );
}
