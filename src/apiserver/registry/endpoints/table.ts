/** The Endpoints' Table columns, as upstream's printEndpoints: NAME ENDPOINTS AGE. */
import type { Endpoints } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  joinHostPort,
  nameColumn,
  str,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

/** Like upstream's formatEndpoints with all ports: up to three "ip:port", then "+ N more...". */
export function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addrs = ss.addresses ?? [];
    // Headless services may have no ports: list bare IPs.
    const ports = ss.ports?.length ? ss.ports : [undefined];
    for (const port of ports) {
      count += addrs.length;
      for (const addr of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(port ? joinHostPort(str(addr.ip), port.port ?? 0) : str(addr.ip));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - max} more...` : ret;
}

/** Endpoints: NAME ENDPOINTS AGE. */
export const endpointsTable: ResourcePrinter = {
  columns: [nameColumn(), column('Endpoints', 'string', docs.endpointsSubsets), ageColumn()],
  print: (obj, now) => ({
    cells: [str(obj.metadata?.name), formatEndpoints(obj), timestampSince(obj.metadata?.creationTimestamp, now)],
  }),
};
