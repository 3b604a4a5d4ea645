/** Deep copies of API objects, like the generated DeepCopy. */

/** A deep copy of a JSON object, like the generated DeepCopy. */
export function deepCopy<T>(obj: T): T {
  return structuredClone(obj);
}
