/** The simple JSONPath of additionalPrinterColumns, selectableFields and /scale paths, as apiextensions reads it. */
/** Reads a simple JSONPath (`.spec.replicas`, `.status.conditions[0].type`, `{.spec.x}`) from an object. */
export function readJSONPath(obj: unknown, path: string): unknown {
  const p = path.replace(/^\{|\}$/g, '').replace(/^\./, '');
  if (p === '') return obj;
  let cur: unknown = obj;
  for (const seg of p.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = seg.startsWith('[') ? (cur as unknown[])[Number(seg.slice(1, -1))] : (cur as Record<string, unknown>)[seg];
  }
  return cur;
}
