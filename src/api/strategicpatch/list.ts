// Merging of lists with patchStrategy=merge, following upstream's mergeSlice: primitive lists are
// unioned, lists of maps merge element-wise by the merge key and honour `$patch` element directives.
import { isObject, type JSONObject } from './mergepatch.js';
import { StrategicMergePatchError } from './errors.js';
import type { PatchSchemaLookup } from './schema.js';
import { elementKind, normalizeElementOrder, partitionByPresence } from './order.js';
import { mergeMap } from './patch.js';

/** Merges a patch list into an original list of a field with the merge strategy. */
export function mergeList(
  original: unknown[],
  patch: unknown[],
  schema: PatchSchemaLookup,
  mergeKey: string,
): unknown[] {
  return mergeListWithView(original, patch, schema, mergeKey).merged;
}

/**
 * Like mergeList, and also returns the live order that upstream's $setElementOrder handling sees
 * afterwards: Go's in-place slice edits leave the original slice header viewing the live elements
 * after deletions followed by the appended ones. Upstream's tests encode that order, so we mirror it.
 */
export function mergeListWithView(
  original: unknown[],
  patch: unknown[],
  schema: PatchSchemaLookup,
  mergeKey: string,
): { merged: unknown[]; liveView: unknown[] } {
  if (original.length === 0 && patch.length === 0) return { merged: original, liveView: original };
  const kind = elementKind(original, patch);
  if (kind === undefined) return { merged: original, liveView: original };

  let live = original;
  let items = patch;
  let merged: unknown[];
  let liveView = original;
  if (kind !== 'object') {
    merged = [];
    for (const v of [...original, ...patch]) if (!merged.includes(v)) merged.push(v);
  } else {
    if (mergeKey === '')
      throw new StrategicMergePatchError(`cannot merge lists without merge key for ${schema.name || 'unknown type'}`);
    let replaced: boolean;
    [live, items, replaced] = applyElementDirectives(original, patch, mergeKey);
    merged = mergeByKey(live, items, mergeKey, schema);
    if (!replaced) liveView = merged.slice(0, original.length);
  }
  const [patchItems, serverOnly] = partitionByPresence(merged, items, mergeKey, kind);
  return { merged: normalizeElementOrder(patchItems, serverOnly, items, live, mergeKey, kind), liveView };
}

/**
 * Handles `{"$patch":"delete", key: v}` (drop matching live elements) and `{"$patch":"replace"}`
 * (the remaining patch elements become the list). Returns the live list and the plain patch elements.
 */
function applyElementDirectives(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
): [unknown[], unknown[], boolean] {
  let live = original;
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    if (!isObject(v)) throw new StrategicMergePatchError(`list element is not a map: ${JSON.stringify(v)}`);
    if (!('$patch' in v)) {
      plain.push(v);
      continue;
    }
    switch (v.$patch) {
      case 'delete':
        if (!(mergeKey in v))
          throw new StrategicMergePatchError(
            `map: ${JSON.stringify(v)} does not contain declared merge key: ${mergeKey}`,
          );
        live = live.filter((o) => !(isObject(o) && o[mergeKey] === v[mergeKey]));
        break;
      case 'replace':
        replace = true;
        break;
      case 'merge':
        throw new StrategicMergePatchError('merging lists cannot yet be specified in the patch');
      default:
        throw new StrategicMergePatchError(`unknown patch type: ${String(v.$patch)} in map: ${JSON.stringify(v)}`);
    }
  }
  return replace ? [plain, [], true] : [live, plain, false];
}

// Merges each patch element into the live element with the same key, or appends it.
function mergeByKey(live: unknown[], patch: unknown[], mergeKey: string, schema: PatchSchemaLookup): unknown[] {
  const out = live.slice();
  for (const v of patch) {
    const item = v as JSONObject;
    if (!(mergeKey in item))
      throw new StrategicMergePatchError(
        `map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`,
      );
    const i = out.findIndex((o) => isObject(o) && o[mergeKey] === item[mergeKey]);
    // A new element goes through mergeMap too, so its nulls and nested directives resolve
    // the way upstream's typed round trip would leave them.
    if (i >= 0) out[i] = mergeMap(out[i] as JSONObject, item, schema);
    else out.push(mergeMap({}, { ...item }, schema));
  }
  return out;
}
