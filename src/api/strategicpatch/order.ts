// List ordering after a strategic merge, following upstream's normalizeElementOrder: patch items keep
// the patch's (or $setElementOrder's) order, server-only items keep the live order, and the two are
// interleaved by their positions in the live list.
import { isObject } from './mergepatch.js';
import { StrategicMergePatchError } from './errors.js';

/** The kind shared by every element of the given lists ('object' for maps). */
export type ElementKind = 'object' | 'string' | 'number' | 'boolean' | 'null';

/** The common element kind of lists, like upstream's sliceElementType; undefined when all are empty. */
export function elementKind(...lists: (readonly unknown[])[]): ElementKind | undefined {
  let kind: ElementKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      if (Array.isArray(v)) throw new StrategicMergePatchError('lists of lists are not supported');
      const k: ElementKind = v === null ? 'null' : isObject(v) ? 'object' : (typeof v as ElementKind);
      if (kind !== undefined && kind !== k)
        throw new StrategicMergePatchError(`list element types are not identical: ${JSON.stringify(lists)}`);
      kind = k;
    }
  }
  return kind;
}

/** The identity of an element: its merge key value for maps, the value itself for primitives. */
function identity(item: unknown, mergeKey: string, kind: ElementKind): unknown {
  if (kind !== 'object') return item;
  return isObject(item) ? item[mergeKey] : undefined;
}

/** Position of `item` in `list` by identity, or -1. */
export function indexOf(list: readonly unknown[], item: unknown, mergeKey: string, kind: ElementKind): number {
  const id = identity(item, mergeKey, kind);
  return list.findIndex((v) => identity(v, mergeKey, kind) === id);
}

/** Throws unless every map element carries the merge key, like upstream's validateMergeKeyInLists. */
export function requireMergeKey(mergeKey: string, ...lists: (readonly unknown[])[]): void {
  for (const list of lists) {
    for (const v of list) {
      if (!isObject(v) || !(mergeKey in v)) {
        throw new StrategicMergePatchError(
          `map: ${JSON.stringify(v)} does not contain declared merge key: ${mergeKey}`,
        );
      }
    }
  }
}

/** Splits `items` into those present in `by` (by identity) and those that are not. */
export function partitionByPresence(
  items: readonly unknown[],
  by: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): [unknown[], unknown[]] {
  if (kind === 'object') requireMergeKey(mergeKey, items);
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const v of items) (indexOf(by, v, mergeKey, kind) >= 0 ? present : absent).push(v);
  return [present, absent];
}

// Sorts by position in `order`; $patch:delete elements go last, like upstream's normalizeSliceOrder.
function sortByOrder(toSort: unknown[], order: readonly unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let rest = toSort;
  let deletes: unknown[] = [];
  if (kind === 'object') {
    requireMergeKey(mergeKey, toSort, order);
    rest = toSort.filter((v) => !(isObject(v) && v.$patch === 'delete'));
    deletes = toSort.filter((v) => isObject(v) && v.$patch === 'delete');
  }
  const keyed = rest.map((v, i) => ({ v, i, pos: indexOf(order, v, mergeKey, kind) }));
  keyed.sort((a, b) => a.pos - b.pos || a.i - b.i);
  return [...keyed.map((k) => k.v), ...deletes];
}

/**
 * Orders a merged list: patch items by `patchOrder`, server-only items by `serverOrder`, then
 * interleaves them so that each server-only item stays before the live items that followed it.
 */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      // Only when both sit in the live list can their live positions decide; otherwise the patch wins.
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
