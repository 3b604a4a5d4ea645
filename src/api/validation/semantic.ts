/**
 * Semantic equality for update checks, like apimachinery's equality.Semantic:
 * a missing field equals its zero value (Go structs cannot tell them apart),
 * so "absent", null, "", 0, false, [] and {} all compare equal.
 */

const isZero = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  v === 0 ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && hasNoKeys(v));

// Without Object.keys: every update compares whole specs, and most objects are not empty.
function hasNoKeys(o: object): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return false;
  return true;
}

/** True when `a` and `b` are equal up to zero values; object key order never matters. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isZero(a) && isZero(b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => semanticEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Every key of either side, without building the union.
  for (const k in ao) if (Object.prototype.hasOwnProperty.call(ao, k) && !semanticEqual(ao[k], bo[k])) return false;
  for (const k in bo) {
    if (
      Object.prototype.hasOwnProperty.call(bo, k) &&
      !Object.prototype.hasOwnProperty.call(ao, k) &&
      !semanticEqual(ao[k], bo[k])
    )
      return false;
  }
  return true;
}
