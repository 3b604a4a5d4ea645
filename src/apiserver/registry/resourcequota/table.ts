import type { ResourceQuota } from '../../../api/index.js';
import { ageColumn, column, nameColumn, type ResourcePrinter, str, timestampSince } from '../printers/index.js';

/** "resource: used/hard" pairs, sorted by name, split into the request and limit columns. */
function usageColumns(rq: ResourceQuota): [string, string] {
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const r of Object.keys(hard).sort()) {
    const pieces = r.split('.');
    const cell = `${r}: ${String(used[r] ?? '0')}/${String(hard[r])}`;
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(cell);
  }
  return [request.join(', '), limit.join(', ')];
}

/** ResourceQuotas: NAME AGE REQUEST LIMIT, from status.hard and status.used. */
export const resourceQuotaTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    ageColumn(),
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
  ],
  print: (obj, now) => {
    const rq = obj as ResourceQuota;
    const [request, limit] = usageColumns(rq);
    return { cells: [str(rq.metadata?.name), timestampSince(rq.metadata?.creationTimestamp, now), request, limit] };
  },
};
