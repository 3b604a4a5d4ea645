// Strategic merge patch application, following upstream's apimachinery/pkg/util/strategicpatch
// (StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls, as the API server uses).
import { applyMergePatch, deepCopy, isObject, type JSONObject } from './mergepatch.js';
import { StrategicMergePatchError } from './errors.js';
import { splitPatchStrategy, type PatchSchemaLookup } from './schema.js';
import { applySetElementOrder } from './setorder.js';
import { mergeList } from './list.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_PREFIX = '$deleteFromPrimitiveList/';
const ORDER_PREFIX = '$setElementOrder/';

/**
 * Applies a strategic merge patch (application/strategic-merge-patch+json) to `original`.
 * Without a schema (kinds with no patch metadata) it is an RFC 7386 merge patch. Inputs are not modified.
 */
export function applyStrategicMergePatch(
  original: object,
  patch: object,
  schema: PatchSchemaLookup | undefined,
): JSONObject {
  if (!isObject(original)) throw new StrategicMergePatchError('original must be a JSON object');
  if (!isObject(patch)) throw new StrategicMergePatchError('patch must be a JSON object');
  if (schema === undefined) return applyMergePatch(original, patch) as JSONObject;
  return mergeMap(deepCopy(original), deepCopy(patch), schema);
}

/** Merges `patch` into `original` (both owned, so mutated freely) and returns the result. */
export function mergeMap(original: JSONObject, patch: JSONObject, schema: PatchSchemaLookup): JSONObject {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    delete patch[DIRECTIVE];
    // Like upstream: replace takes the patch verbatim, delete leaves an empty map.
    if (directive === 'replace') return patch;
    if (directive === 'delete') return {};
    // Upstream rejects `$patch: merge` on maps; it already is the default, so we accept it as a no-op.
    if (directive !== 'merge')
      throw new StrategicMergePatchError(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema);

  const deletions: [string, unknown][] = [];
  for (const [key, patchV] of Object.entries(patch)) {
    if (key.startsWith(DELETE_PREFIX)) {
      deletions.push([key.slice(DELETE_PREFIX.length), patchV]);
      continue;
    }
    mergeField(original, key, patchV, schema);
  }
  // Deletions run after additions so that a value both added and deleted ends up deleted.
  for (const [key, toDelete] of deletions) {
    const current = original[key];
    if (!Array.isArray(current)) continue;
    if (!Array.isArray(toDelete)) throw new StrategicMergePatchError(`${DELETE_PREFIX}${key} must be a list`);
    original[key] = current.filter((v) => !toDelete.includes(v));
  }
  return original;
}

// Merges one key of the patch into original, by the kind of both values and the field's strategy.
function mergeField(original: JSONObject, key: string, patchV: unknown, schema: PatchSchemaLookup): void {
  if (patchV === null) {
    delete original[key];
    return;
  }
  const originalV = original[key];
  if (originalV === undefined || kindOf(originalV) !== kindOf(patchV)) {
    const [v, keep] = sanitizeNewValue(patchV);
    if (keep) original[key] = v;
    else delete original[key];
    return;
  }
  const { meta, schema: sub } = schema.field(key);
  const { strategy } = splitPatchStrategy(meta.patchStrategy);
  if (isObject(originalV) && isObject(patchV)) {
    original[key] = strategy === 'replace' ? patchV : mergeMap(originalV, patchV, sub);
  } else if (Array.isArray(originalV) && Array.isArray(patchV)) {
    original[key] = strategy === 'merge' ? mergeList(originalV, patchV, sub, meta.patchMergeKey ?? '') : patchV;
  } else {
    original[key] = patchV;
  }
}

function kindOf(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

/**
 * Prepares a patch value that has nothing to merge with: nulls are dropped and maps carrying a
 * `$patch` directive are discarded (upstream's removeDirectives); parallel-list keys are stripped.
 * Returns the value and whether to keep it.
 */
export function sanitizeNewValue(v: unknown): [unknown, boolean] {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      const [nv, keep] = sanitizeNewValue(item);
      if (keep) out.push(nv);
    }
    return [out, true];
  }
  if (!isObject(v)) return [v, true];
  if (DIRECTIVE in v) return [undefined, false];
  for (const [k, child] of Object.entries(v)) {
    if (child === null || k === RETAIN_KEYS || k.startsWith(DELETE_PREFIX) || k.startsWith(ORDER_PREFIX)) {
      delete v[k];
      continue;
    }
    const [nv, keep] = sanitizeNewValue(child);
    if (keep) v[k] = nv;
    else delete v[k];
  }
  return [v, true];
}

// `$retainKeys`: clears keys of original missing from the list; every patched key must be listed.
function applyRetainKeys(original: JSONObject, patch: JSONObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const keys = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(keys))
    throw new StrategicMergePatchError('invalid patch: $retainKeys must be a list of field names');
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PREFIX) || k.startsWith(ORDER_PREFIX)) continue;
    if (!keys.includes(k))
      throw new StrategicMergePatchError(`invalid patch: field ${k} is not in the $retainKeys list`);
  }
  for (const k of Object.keys(original)) {
    if (!keys.includes(k)) delete original[k];
  }
}
