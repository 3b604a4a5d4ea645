/**
 * Plain JSON objects as the API server handles them, with small accessors for
 * the metadata every handler touches.
 */
import { deepCopy as jsonDeepCopy } from '../api/index.js';

/** A decoded Kubernetes object. JSON is dynamic by nature; handlers check shapes explicitly. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

/** The object's metadata, created when missing. */
export function meta(obj: Obj): Obj {
  if (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata as Obj;
}

/** A deep copy of a JSON value (a walk, not structuredClone: see the strategic patch package's deepCopy). */
export const deepCopy: <T>(v: T) => T = jsonDeepCopy;

/** Structural equality of two JSON values, ignoring key order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  const bk = Object.keys(b as object);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual((a as Obj)[k], (b as Obj)[k])) return false;
  return true;
}
