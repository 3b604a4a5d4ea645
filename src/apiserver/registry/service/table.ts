/**
 * The services' Table columns, as upstream's printService: TYPE, CLUSTER-IP,
 * EXTERNAL-IP (from the type), PORT(S), AGE, and the selector in -o wide.
 */
import type { KubeObject, Service } from '../../../api/index.js';
import {
  ageColumn,
  column,
  docs,
  formatLabels,
  nameColumn,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

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

/** Services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, wide SELECTOR. */
export const serviceTable: ResourcePrinter = {
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
