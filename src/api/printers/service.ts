/**
 * Printers for service networking: services, endpoints and endpointslices,
 * as upstream's printService, printEndpoints and printEndpointSlice.
 */
import { ageColumn, column, nameColumn } from './columns.js';
import { docs } from './docs.js';
import { timestampSince } from './duration.js';
import { formatLabels, joinHostPort, listWithMore, str } from './format.js';
import type { KubeObject, PrintedRow, ResourcePrinter } from './types.js';

interface Service extends KubeObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    externalIPs?: string[];
    externalName?: string;
    ports?: { port?: number; nodePort?: number; protocol?: string }[];
    selector?: Record<string, string>;
  };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

/** Like loadBalancerStatusStringer in wide mode: the server always prints wide, so nothing is clipped. */
function loadBalancerIPs(svc: Service): string {
  const set = new Set<string>();
  for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
    if (ing.ip) set.add(ing.ip);
    else if (ing.hostname) set.add(ing.hostname);
  }
  return [...set].sort().join(',');
}

/** Like upstream's getServiceExternalIP. */
function externalIP(svc: Service, type: string): string {
  const external = svc.spec?.externalIPs ?? [];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIPs(svc);
      if (external.length > 0) return [...(lb ? lb.split(',') : []), ...external].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(svc.spec?.externalName);
  }
  return '<unknown>';
}

/** Like upstream's makePortString: "80/TCP,443:30443/TCP". */
export function makePortString(ports: NonNullable<Service['spec']>['ports']): string {
  return (ports ?? [])
    .map((p) => {
      // protocol defaults to TCP, as the v1 defaulter sets it.
      const proto = p.protocol || 'TCP';
      const nodePort = p.nodePort ?? 0;
      return nodePort > 0 ? `${p.port ?? 0}:${nodePort}/${proto}` : `${p.port ?? 0}/${proto}`;
    })
    .join(',');
}

function printService(obj: KubeObject, now: number): PrintedRow {
  const svc = obj as Service;
  // type defaults to ClusterIP; clusterIPs is filled from clusterIP, as defaulting does.
  const type = svc.spec?.type || 'ClusterIP';
  const clusterIPs = svc.spec?.clusterIPs?.length
    ? svc.spec.clusterIPs
    : svc.spec?.clusterIP
      ? [svc.spec.clusterIP]
      : [];
  return {
    cells: [
      str(svc.metadata?.name),
      type,
      clusterIPs[0] || '<none>',
      externalIP(svc, type),
      makePortString(svc.spec?.ports) || '<none>',
      timestampSince(svc.metadata?.creationTimestamp, now),
      formatLabels(svc.spec?.selector),
    ],
  };
}

interface Endpoints extends KubeObject {
  subsets?: { addresses?: { ip?: string }[]; ports?: { name?: string; port?: number }[] }[];
}

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

interface EndpointSlice extends KubeObject {
  addressType?: string;
  ports?: { name?: string | null; port?: number | null }[] | null;
  endpoints?: { addresses?: string[] }[] | null;
}

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

/** Services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, wide SELECTOR. */
export const servicePrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Type', 'string', docs.serviceSpecType),
    column('Cluster-IP', 'string', docs.serviceSpecClusterIP),
    column('External-IP', 'string', docs.serviceSpecExternalIPs),
    column('Port(s)', 'string', docs.serviceSpecPorts),
    ageColumn(),
    column('Selector', 'string', docs.serviceSpecSelector, { wide: true }),
  ],
  print: printService,
};

/** Endpoints: NAME ENDPOINTS AGE. */
export const endpointsPrinter: ResourcePrinter = {
  columns: [nameColumn(), column('Endpoints', 'string', docs.endpointsSubsets), ageColumn()],
  print: (obj, now) => ({
    cells: [str(obj.metadata?.name), formatEndpoints(obj), timestampSince(obj.metadata?.creationTimestamp, now)],
  }),
};

/** EndpointSlices: NAME ADDRESSTYPE PORTS ENDPOINTS AGE. */
export const endpointSlicePrinter: ResourcePrinter = {
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
