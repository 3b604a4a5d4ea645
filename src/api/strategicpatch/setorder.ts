// `$setElementOrder/<field>`: kubectl sends the desired order of a merged list beside the list's
// changes. Following upstream's mergePatchIntoOriginal, the list is merged first and then ordered:
// $setElementOrder first, then the patch's order, then the live order.
import { isObject, type JSONObject } from './mergepatch.js';
import { StrategicMergePatchError } from './errors.js';
import { splitPatchStrategy, type PatchSchemaLookup } from './schema.js';
import { elementKind, normalizeElementOrder, partitionByPresence } from './order.js';
import { mergeListWithView } from './list.js';
import { sanitizeNewValue } from './patch.js';

const ORDER_PREFIX = '$setElementOrder/';

/** Processes every `$setElementOrder/<field>` in `patch`, merging and ordering that field into original. */
export function applySetElementOrder(original: JSONObject, patch: JSONObject, schema: PatchSchemaLookup): void {
  for (const [directiveKey, order] of Object.entries(patch)) {
    if (!directiveKey.startsWith(ORDER_PREFIX)) continue;
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw new StrategicMergePatchError(`invalid patch: ${directiveKey} must be a list`);
    const key = directiveKey.slice(ORDER_PREFIX.length);
    const liveV = original[key];
    const patchV = patch[key];
    const live = Array.isArray(liveV) ? liveV : undefined;
    const patched = Array.isArray(patchV) ? patchV : undefined;
    if (live === undefined && patched === undefined) continue;

    const { meta, schema: sub } = schema.field(key);
    const mergeKey = meta.patchMergeKey ?? '';
    const { strategy } = splitPatchStrategy(meta.patchStrategy);
    validateOrder(patched ?? [], order, mergeKey);

    let liveOrder = live ? live.slice() : [];
    let merged: unknown[];
    if (live && !patched) merged = live;
    else if (!live && patched) merged = sanitizeNewValue(patched)[0] as unknown[];
    else if (strategy === 'merge')
      ({ merged, liveView: liveOrder } = mergeListWithView(live!, patched!, sub, mergeKey));
    else merged = patched!;

    const found = elementKind(liveOrder, patched ?? []) ?? elementKind(merged);
    if (found !== undefined) {
      // Without a merge key, elements are compared by value (upstream partitions them as primitives).
      const kind = mergeKey === '' && found === 'object' ? 'string' : found;
      const [inOrder, serverOnly] = partitionByPresence(merged, order, mergeKey, kind);
      merged = normalizeElementOrder(inOrder, serverOnly, order, liveOrder, mergeKey, kind);
    }
    original[key] = merged;
    delete patch[key];
  }
}

/**
 * Checks the patch list against the order list like upstream's validatePatchWithSetOrderList: patch
 * elements (deletions aside) must appear in the order list, in the same relative order.
 */
function validateOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (patchList.length === 0 || order.length === 0) return;
  const items = mergeKey === '' ? patchList : patchList.filter((v) => !(isObject(v) && v.$patch === 'delete'));
  const same = (a: unknown, b: unknown): boolean => {
    if (mergeKey === '') return a === b;
    if (!isObject(a) || !(mergeKey in a) || !isObject(b) || !(mergeKey in b)) {
      throw new StrategicMergePatchError(
        `map: ${JSON.stringify(isObject(a) && mergeKey in a ? b : a)} does not contain declared merge key: ${mergeKey}`,
      );
    }
    return a[mergeKey] === b[mergeKey];
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isObject(items[p]) && '$patch' in (items[p] as JSONObject)) {
      p++;
      continue;
    }
    if (same(items[p], order[o])) p++;
    o++;
  }
  if (p < items.length) {
    throw new StrategicMergePatchError(
      `The order in patch list:\n${JSON.stringify(patchList)}\n doesn't match $setElementOrder list:\n${JSON.stringify(order)}`,
    );
  }
}
