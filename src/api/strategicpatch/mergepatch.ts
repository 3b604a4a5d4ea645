// JSON merge patch (RFC 7386), what the API server applies for application/merge-patch+json.

/** A JSON object as decoded by JSON.parse. */
export type JSONObject = { [key: string]: unknown };

/** True for plain JSON objects (not arrays, not null). */
export function isObject(v: unknown): v is JSONObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Deep copy of a JSON value. Plain objects and arrays are copied by a walk,
 * about ten times cheaper than structuredClone for a 2 KB pod (which
 * serializes and deserializes); anything else (a Date, a Buffer) still goes
 * through structuredClone. Own keys only, and `__proto__` stays a plain key,
 * as JSON.parse made it.
 */
export function deepCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  return copyValue(v) as T;
}

function copyValue(v: object): unknown {
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      out[i] = typeof x === 'object' && x !== null ? copyValue(x) : x;
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const src = v as JSONObject;
  const out: JSONObject = {};
  for (const k of Object.keys(src)) {
    const x = src[k];
    const c = typeof x === 'object' && x !== null ? copyValue(x) : x;
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return out;
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
