/** The EndpointSlices' Table columns, as upstream's printEndpointSlice: NAME ADDRESSTYPE PORTS ENDPOINTS AGE. */
import type { EndpointSlice } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  listWithMore,
  nameColumn,
  str,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

function formatSlicePorts(ports: EndpointSlice['ports']): string {
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const p of ports ?? []) {
    if (list.length < max)
      list.push(typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*');
    count++;
  }
  return listWithMore(list, count > max, count, max);
}

function formatSliceEndpoints(endpoints: EndpointSlice['endpoints']): string {
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const ep of endpoints ?? []) {
    for (const a of ep.addresses ?? []) {
      if (list.length < max) list.push(a);
      count++;
    }
  }
  return listWithMore(list, count > max, count, max);
}

/** EndpointSlices: NAME ADDRESSTYPE PORTS ENDPOINTS AGE. */
export const endpointSliceTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('AddressType', 'string', docs.endpointSliceAddressType),
    column('Ports', 'string', docs.endpointSlicePorts),
    column('Endpoints', 'string', docs.endpointSliceEndpoints),
    ageColumn(),
  ],
  print: (obj, now) => {
    const s = obj as EndpointSlice;
    return {
      cells: [
        str(s.metadata?.name),
        str(s.addressType),
        formatSlicePorts(s.ports),
        formatSliceEndpoints(s.endpoints),
        timestampSince(s.metadata?.creationTimestamp, now),
      ],
    };
  },
};
