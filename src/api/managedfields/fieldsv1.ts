// FieldsV1 JSON read in place, for managers a write does not touch: instead of decoding into a
// FieldSet and encoding back, a FieldsV1 object already in the canonical form toFieldsV1 writes
// is checked, tested against a few paths, and copied.
import { comparePathElements, type FieldSet } from './fieldset.js';

type Obj = Record<string, unknown>;

/**
 * A copy of `fields` when it is exactly what FieldSet.fromFieldsV1(fields).toFieldsV1() returns
 * (plain objects, path elements in order, `"."` first and only beside children), else undefined.
 */
export function canonicalFieldsV1Copy(fields: unknown): Obj | undefined {
  return isPlainObject(fields) ? canonicalCopy(fields, false) : undefined;
}

// `nested`: the node is a member's value, where a leading `"."` marks the member itself.
function canonicalCopy(fields: Obj, nested: boolean): Obj | undefined {
  const out: Obj = {};
  let prev: string | undefined;
  let n = 0;
  for (const pe in fields) {
    if (pe === '.') {
      if (!nested || n !== 0 || !isEmptyPlainObject(fields[pe])) return undefined;
      out['.'] = {};
      n++;
      continue;
    }
    n++;
    if (prev !== undefined && !inOrder(prev, pe)) return undefined;
    prev = pe;
    const sub = fields[pe];
    if (!isPlainObject(sub)) return undefined;
    let copy: Obj | undefined;
    if (isEmptyPlainObject(sub)) copy = {};
    else if ((copy = canonicalCopy(sub, true)) === undefined) return undefined;
    out[pe] = copy;
  }
  // A lone "." is written as {} by toFieldsV1.
  return nested && prev === undefined && n > 0 ? undefined : out;
}

// comparePathElements(a, b) < 0, with plain string order for two non-index elements of one kind.
function inOrder(a: string, b: string): boolean {
  const c = a.charCodeAt(0);
  if (c === b.charCodeAt(0) && c !== 105 /* i */ && a.charCodeAt(1) === 58 && b.charCodeAt(1) === 58) return a < b;
  return comparePathElements(a, b) < 0;
}

/** A deep copy of FieldsV1 JSON made of plain objects only (as canonicalFieldsV1Copy checked). */
export function copyFieldsV1(fields: Obj): Obj {
  const out: Obj = {};
  for (const k in fields) out[k] = copyFieldsV1(fields[k] as Obj);
  return out;
}

/** True when FieldsV1 `fields` has any member path of `set` (fromFieldsV1's membership: `{}` or `"."`). */
export function fieldsV1Intersects(fields: Obj, set: FieldSet): boolean {
  for (const m of set.members) {
    const sub = fields[m] as Obj | undefined;
    if (sub !== undefined && Object.hasOwn(fields, m) && (isEmptyPlainObject(sub) || '.' in sub)) return true;
  }
  for (const [pe, c] of set.children) {
    const sub = fields[pe] as Obj | undefined;
    if (sub !== undefined && Object.hasOwn(fields, pe) && fieldsV1Intersects(sub, c)) return true;
  }
  return false;
}

/** True when FieldsV1 `fields` has no member path. */
export function isEmptyFieldsV1(fields: Obj): boolean {
  for (const _ in fields) return false;
  return true;
}

function isPlainObject(v: unknown): v is Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
}

function isEmptyPlainObject(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  for (const _ in v) return false;
  return true;
}

/**
 * FieldsV1 `fields` (canonical) less the member paths of `set`: exactly
 * FieldSet.fromFieldsV1(fields).difference(set).toFieldsV1(). Subtrees `set` does not reach are
 * shared with `fields`, so only use it on FieldsV1 this package owns.
 */
export function fieldsV1Difference(fields: Obj, set: FieldSet): Obj {
  const out: Obj = {};
  for (const pe in fields) {
    if (pe === '.') continue;
    const sub = fields[pe] as Obj;
    const drop = set.members.has(pe);
    const other = set.children.get(pe);
    if (!drop && other === undefined) {
      out[pe] = sub;
      continue;
    }
    let member = false;
    let children = false;
    for (const k in sub) {
      if (k === '.') member = true;
      else children = true;
      if (children) break;
    }
    if (!children) member = true;
    if (drop) member = false;
    let child: Obj | undefined;
    if (children) {
      child = other ? fieldsV1Difference(sub, other) : withoutMarker(sub);
      if (isEmptyFieldsV1(child)) child = undefined;
    }
    if (child !== undefined) out[pe] = member ? { '.': {}, ...child } : child;
    else if (member) out[pe] = {};
  }
  return out;
}

function withoutMarker(fields: Obj): Obj {
  if (!('.' in fields)) return fields;
  const out: Obj = {};
  for (const k in fields) if (k !== '.') out[k] = fields[k];
  return out;
}
