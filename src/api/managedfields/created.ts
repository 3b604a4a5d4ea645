// The managed fields of a create, built straight from the new object: on create every field is
// added, so the Update entry's FieldsV1 is the object's field set (as compare({}, obj) reports it),
// less the fields nobody owns. This skips the comparison and the FieldSet round trip.
import { fieldPathElement, sortPathElements } from './fieldset.js';
import { STRIPPED_METADATA, STRIPPED_ROOT } from './managers.js';
import {
  elementContext,
  fieldContext,
  isAtomicObject,
  isObj,
  itemPathElement,
  listSemantics,
  type TypeContext,
} from './typed.js';

type Obj = Record<string, unknown>;

/** Which fields of an object are not owned: whole subtrees dropped, or only the field itself. */
interface OwnershipFilter {
  drop?: Set<string>;
  notMember?: ReadonlySet<string>;
  sub?: Map<string, OwnershipFilter>;
}

/**
 * The FieldsV1 an Update manager creating `obj` owns, or undefined when it owns nothing; exactly
 * what the general path (compare with an empty object, then filterOwned) encodes.
 */
export function createdFieldsV1(
  obj: Obj,
  ctx: TypeContext,
  resetFields: readonly (readonly string[])[] | undefined,
): Obj | undefined {
  const out: Obj = {};
  return objectFields(obj, ctx, rootFilter(resetFields), out) ? out : undefined;
}

function rootFilter(resetFields: readonly (readonly string[])[] | undefined): OwnershipFilter {
  const root: OwnershipFilter = {
    notMember: STRIPPED_ROOT,
    sub: new Map([['metadata', { notMember: STRIPPED_METADATA }]]),
  };
  for (const path of resetFields ?? []) {
    let f = root;
    for (let i = 0; i < path.length - 1; i++) {
      f.sub ??= new Map();
      let next = f.sub.get(path[i]);
      if (!next) f.sub.set(path[i], (next = {}));
      f = next;
    }
    // Like filterOwned, an empty path names the field "undefined".
    (f.drop ??= new Set()).add(String(path[path.length - 1]));
  }
  return root;
}

// Adds the FieldsV1 of an object's fields (its children) to `out`; false when there are none.
function objectFields(obj: Obj, ctx: TypeContext, filter: OwnershipFilter | undefined, out: Obj): boolean {
  const keys = Object.keys(obj).sort();
  let any = false;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined || (filter?.drop !== undefined && filter.drop.has(k))) continue;
    const member = filter?.notMember === undefined || !filter.notMember.has(k);
    const fv = valueFields(v, fieldContext(ctx, k), filter?.sub?.get(k), member);
    if (fv !== undefined) {
      out[fieldPathElement(k)] = fv;
      any = true;
    }
  }
  return any;
}

// The FieldsV1 value at one path: `{}` for a member leaf, children (with "." when also a member), or undefined.
function valueFields(
  v: unknown,
  ctx: TypeContext,
  filter: OwnershipFilter | undefined,
  member: boolean,
): Obj | undefined {
  const list = Array.isArray(v);
  if (
    list ? v.length === 0 || listSemantics(ctx).listType === 'atomic' : !isObj(v) || isAtomicObject(ctx) || isEmpty(v)
  ) {
    return member ? {} : undefined;
  }
  // Like compare, a container that appears is added itself unless upstream always serializes it.
  const self = member && !ctx.meta.alwaysSerialized;
  const out: Obj = self ? { '.': {} } : {};
  const any = list ? listFields(v, ctx, out) : objectFields(v as Obj, ctx, filter, out);
  if (any) return out;
  return self ? {} : undefined;
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

function listFields(list: unknown[], ctx: TypeContext, out: Obj): boolean {
  const items = new Map<string, unknown>();
  for (let i = 0; i < list.length; i++) {
    const pe = itemPathElement(ctx, list[i], i);
    // The first of duplicated items wins, as in compare.
    if (!items.has(pe)) items.set(pe, list[i]);
  }
  const elem = elementContext(ctx);
  let any = false;
  for (const pe of sortPathElements([...items.keys()])) {
    const item = items.get(pe);
    if (item === undefined) continue;
    const fv = valueFields(item, elem, undefined, true);
    if (fv !== undefined) {
      out[pe] = fv;
      any = true;
    }
  }
  return any;
}
