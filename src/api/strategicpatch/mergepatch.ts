// JSON merge patch (RFC 7386), what the API server applies for application/merge-patch+json.

/** A JSON object as decoded by JSON.parse. */
export type JSONObject = { [key: string]: unknown };

/** True for plain JSON objects (not arrays, not null). */
export function isObject(v: unknown): v is JSONObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep copy of a JSON value. */
export function deepCopy<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

/**
 * Applies an RFC 7386 merge patch: objects merge recursively, null deletes, anything else
 * (arrays included) replaces. Inputs are not modified.
 */
export function applyMergePatch(original: unknown, patch: unknown): unknown {
  return mergeInto(deepCopy(original), patch);
}

// mergeInto may reuse `target`, which applyMergePatch has already copied.
function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepCopy(patch);
  const out: JSONObject = isObject(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergeInto(out[k], v);
  }
  return out;
}
