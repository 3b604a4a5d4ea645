/** LimitRange defaulting, as upstream's SetDefaults_LimitRangeItem. */
import type { LimitRange } from '../types/quota.js';

/**
 * For Container items: a missing default limit becomes the max, and a missing default request
 * becomes the default limit, else the min.
 */
export function defaultLimitRange(obj: Record<string, unknown>): void {
  for (const item of (obj as LimitRange).spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    const def = (item.default ??= {});
    const req = (item.defaultRequest ??= {});
    for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in req)) req[k] = v;
    // Empty maps are omitted on the wire, as Go's omitempty drops them.
    if (Object.keys(def).length === 0) delete item.default;
    if (Object.keys(req).length === 0) delete item.defaultRequest;
  }
}
