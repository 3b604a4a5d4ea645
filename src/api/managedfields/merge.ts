// Merging an applied configuration into a live object, and removing fields from an object, like
// structured-merge-diff's typed Merge and RemoveItems.
import type { FieldSet, PathElement } from './fieldset.js';
import {
  elementContext,
  fieldContext,
  isAtomicObject,
  isObj,
  itemPathElement,
  listSemantics,
  type TypeContext,
} from './typed.js';

/** Merges `rhs` (applied config) over `lhs` (live); rhs wins on leaves, associative lists merge by key. */
export function mergeValues(lhs: unknown, rhs: unknown, ctx: TypeContext): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  if (Array.isArray(lhs) && Array.isArray(rhs)) {
    if (listSemantics(ctx).listType === 'atomic' || (lhs.length === 0 && rhs.length === 0)) return rhs;
    return mergeLists(lhs, rhs, ctx);
  }
  if (isObj(lhs) && isObj(rhs)) {
    if (isAtomicObject(ctx) || (Object.keys(lhs).length === 0 && Object.keys(rhs).length === 0)) return rhs;
    const out: Record<string, unknown> = { ...lhs };
    for (const [k, v] of Object.entries(rhs)) out[k] = mergeValues(lhs[k], v, fieldContext(ctx, k));
    return out;
  }
  return rhs;
}

/**
 * Merges list items by path element, ordered like SMD: items shared by both lists follow the applied
 * order, live-only items stay next to the items they followed, applied-only items come where applied.
 */
function mergeLists(lhs: unknown[], rhs: unknown[], ctx: TypeContext): unknown[] {
  const elem = elementContext(ctx);
  const lPEs = lhs.map((v, i) => itemPathElement(ctx, v, i));
  const rPEs = rhs.map((v, i) => itemPathElement(ctx, v, i));
  const lByPE = new Map<PathElement, unknown>();
  lPEs.forEach((pe, i) => lByPE.set(pe, lByPE.has(pe) ? undefined : lhs[i]));
  const rByPE = new Map<PathElement, unknown>();
  rPEs.forEach((pe, i) => {
    if (!rByPE.has(pe)) rByPE.set(pe, rhs[i]);
  });

  const shared = rPEs.filter((pe) => lByPE.has(pe));
  let nextShared: PathElement | undefined = shared.shift();
  const merged = new Set<PathElement>();
  const out: unknown[] = [];
  let li = 0;
  let ri = 0;
  while (li < lPEs.length || ri < rPEs.length) {
    if (li < lPEs.length && ri < rPEs.length) {
      const pe = lPEs[li];
      if (pe === rPEs[ri]) {
        merged.add(pe);
        out.push(mergeValues(lByPE.get(pe), rByPE.get(pe), elem));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      // A shared live item out of applied order waits until the applied list reaches it.
      if (rByPE.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < lPEs.length) {
      const pe = lPEs[li];
      if (!rByPE.has(pe)) {
        out.push(lhs[li]);
        li++;
        continue;
      } else if (merged.has(pe)) {
        li++;
      }
    }
    if (ri < rPEs.length) {
      const pe = rPEs[ri];
      merged.add(pe);
      out.push(mergeValues(lByPE.get(pe), rByPE.get(pe), elem));
      ri++;
      if (nextShared === pe) nextShared = shared.shift();
    }
  }
  return out;
}

/**
 * Removes the member paths of `toRemove` from `value`. Lists and maps emptied by the removal are
 * dropped (undefined), as upstream's typed round trip would omit them.
 */
export function removeFields(value: unknown, toRemove: FieldSet, ctx: TypeContext): unknown {
  if (Array.isArray(value)) {
    if (listSemantics(ctx).listType === 'atomic' || value.length === 0) return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = itemPathElement(ctx, item, i);
      if (toRemove.members.has(pe)) return;
      const sub = toRemove.withPrefix(pe);
      const v = sub ? removeFields(item, sub, elementContext(ctx)) : item;
      if (v !== undefined) out.push(v);
    });
    return out.length > 0 ? out : undefined;
  }
  if (isObj(value)) {
    if (isAtomicObject(ctx) || Object.keys(value).length === 0) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const pe = `f:${k}`;
      if (toRemove.members.has(pe)) continue;
      const sub = toRemove.withPrefix(pe);
      const nv = sub ? removeFields(v, sub, fieldContext(ctx, k)) : v;
      if (nv !== undefined) out[k] = nv;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}
