/**
 * Content negotiation: JSON always (protobuf requests are answered in JSON,
 * as kubectl accepts), and meta.k8s.io Table when the Accept list asks for
 * it, as kubectl get does. An Accept list that allows protobuf only gets 406.
 */
import type { IncomingMessage } from 'node:http';
import { badRequest, notAcceptable } from '../api/index.js';

/**
 * Refuses (406 NotAcceptable) an Accept list whose every entry is Kubernetes protobuf: kscale
 * writes JSON only, where upstream would answer in protobuf. Any other list is answered in JSON,
 * as before (kubectl and client-go always list application/json after protobuf).
 */
export function checkAcceptable(req: IncomingMessage): void {
  const accept = req.headers.accept;
  if (accept === undefined || !accept.includes('protobuf')) return;
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]!.trim().toLowerCase();
    if (type !== '' && type !== 'application/vnd.kubernetes.protobuf') return;
  }
  throw notAcceptable(['application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io']);
}

/** What the response should be. */
export interface Output {
  table: boolean;
  includeObject: 'None' | 'Metadata' | 'Object';
}

/** Reads Accept and ?includeObject. */
export function negotiateOutput(req: IncomingMessage, query: URLSearchParams): Output {
  // Most requests (every client-go GET) name no Table: their Accept list is not split.
  const accept = req.headers.accept ?? '';
  const table = accept.includes('as=Table') && asksForTable(accept);
  const inc = query.get('includeObject') ?? 'Metadata';
  if (inc !== 'None' && inc !== 'Metadata' && inc !== 'Object') throw badRequest(`invalid includeObject: ${inc}`);
  return { table, includeObject: inc };
}

function asksForTable(accept: string): boolean {
  for (const part of accept.split(',')) {
    const params = part.split(';').map((s) => s.trim());
    if (params.includes('as=Table') && params.some((p) => p === 'g=meta.k8s.io')) return true;
    // An earlier plain JSON or wildcard entry wins over a later Table entry.
    if (params[0] === 'application/json' || params[0] === '*/*') return false;
  }
  return false;
}
