/**
 * Query parameters as upstream decodes them into its options structs
 * (apimachinery's string-slice-to-bool conversion).
 */

/**
 * A boolean query parameter: absent is false; present, it is true unless its
 * first value is "0" or "false" (any case), so `?watch`, `?watch=1` and the
 * Python client's `?watch=True` all mean true, like kube-apiserver.
 */
export function queryBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  return v !== '0' && v.toLowerCase() !== 'false';
}
