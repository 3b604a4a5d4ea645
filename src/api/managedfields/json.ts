// Canonical JSON, the spelling of key and value path elements, and a fast equality that agrees with it.

/** Compact JSON with object keys sorted, as SMD writes key and value path elements. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Exactly `canonicalJSON(a) === canonicalJSON(b)`, without building the strings: plain JSON values
 * are compared directly, anything else (undefined members, non-finite numbers, class instances)
 * falls back to the strings.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const r = plainEqual(a, b);
  return r === undefined ? canonicalJSON(a) === canonicalJSON(b) : r;
}

// True or false for plain JSON values; undefined when the answer needs canonicalJSON.
function plainEqual(a: unknown, b: unknown): boolean | undefined {
  if (a === b) return true;
  const aObj = typeof a === 'object' && a !== null;
  const bObj = typeof b === 'object' && b !== null;
  // Different JSON scalars differ; a scalar never spells like an object or array.
  if (!aObj && !bObj) return isJSONScalar(a) && isJSONScalar(b) ? false : undefined;
  if (!aObj || !bObj) return isJSONScalar(aObj ? b : a) ? false : undefined;
  const aArr = Array.isArray(a);
  if (aArr !== Array.isArray(b)) return false;
  if (aArr) {
    const al = a as unknown[];
    const bl = b as unknown[];
    if (al.length !== bl.length) return al.includes(undefined) || bl.includes(undefined) ? undefined : false;
    for (let i = 0; i < al.length; i++) {
      const r = plainEqual(al[i], bl[i]);
      if (r !== true) return r;
    }
    return true;
  }
  if (!isPlainObject(a as object) || !isPlainObject(b as object)) return undefined;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return undefined;
  for (const k of keys) {
    if (!Object.hasOwn(bo, k)) return undefined;
    const r = plainEqual(ao[k], bo[k]);
    if (r !== true) return r;
  }
  return true;
}

// Strings, finite numbers, booleans and null: values whose JSON spelling is unambiguous.
function isJSONScalar(v: unknown): boolean {
  const t = typeof v;
  return t === 'string' || t === 'boolean' || v === null || (t === 'number' && Number.isFinite(v));
}

function isPlainObject(o: object): boolean {
  const p = Object.getPrototypeOf(o) as unknown;
  return p === Object.prototype || p === null;
}
