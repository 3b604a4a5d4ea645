/** Service and EndpointSlice objects for the proxy's unit tests and benchmark, built in memory. */
import type { KubeObject } from '../../client/index.js';
import { endpointsFromSlices, sliceServiceKey } from '../endpoint_info.js';
import { servicePorts } from '../service_info.js';
import type { EndpointsMap, ServicePortMap } from '../types.js';

/** Knobs of a test Service. */
export interface ServiceOpts {
  ns?: string;
  type?: string;
  protocol?: string;
  port?: number;
  nodePort?: number;
  affinity?: boolean;
  externalPolicy?: string;
  internalPolicy?: string;
  topology?: boolean;
  externalIPs?: string[];
}

/** A Service object with one port named "p". */
export function service(name: string, clusterIP: string, o: ServiceOpts = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: o.ns ?? 'default',
      ...(o.topology === true ? { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } } : {}),
    },
    spec: {
      type: o.type ?? (o.nodePort !== undefined ? 'NodePort' : 'ClusterIP'),
      clusterIP,
      sessionAffinity: o.affinity === true ? 'ClientIP' : 'None',
      ...(o.externalPolicy !== undefined ? { externalTrafficPolicy: o.externalPolicy } : {}),
      ...(o.internalPolicy !== undefined ? { internalTrafficPolicy: o.internalPolicy } : {}),
      ...(o.externalIPs !== undefined ? { externalIPs: o.externalIPs } : {}),
      ports: [
        {
          name: 'p',
          port: o.port ?? 80,
          protocol: o.protocol ?? 'TCP',
          ...(o.nodePort !== undefined ? { nodePort: o.nodePort } : {}),
        },
      ],
    },
  };
}

/** One endpoint of a test slice. */
export interface SliceEndpoint {
  ip: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  node?: string;
  zone?: string;
  hints?: string[];
}

/** An EndpointSlice for service `svc` with port "p". */
export function slice(
  svc: string,
  name: string,
  eps: (string | SliceEndpoint)[],
  o: { ns?: string; port?: number; protocol?: string; trigger?: string } = {},
): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: o.ns ?? 'default',
      labels: { 'kubernetes.io/service-name': svc },
      ...(o.trigger !== undefined
        ? { annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': o.trigger } }
        : {}),
    },
    addressType: 'IPv4',
    ports: [{ name: 'p', port: o.port ?? 8080, protocol: o.protocol ?? 'TCP' }],
    endpoints: eps.map((e) => {
      const x = typeof e === 'string' ? { ip: e } : e;
      return {
        addresses: [x.ip],
        conditions: {
          ready: x.ready ?? true,
          ...(x.serving !== undefined ? { serving: x.serving } : {}),
          ...(x.terminating !== undefined ? { terminating: x.terminating } : {}),
        },
        ...(x.node !== undefined ? { nodeName: x.node } : {}),
        ...(x.zone !== undefined ? { zone: x.zone } : {}),
        ...(x.hints !== undefined ? { hints: { forZones: x.hints.map((name) => ({ name })) } } : {}),
      };
    }),
  };
}

/** Service and endpoint maps for the given objects, as a synced proxy would hold them. */
export function proxyState(
  services: KubeObject[],
  slices: KubeObject[],
  nodeName = 'n1',
): { services: ServicePortMap; endpoints: EndpointsMap } {
  const svcMap: ServicePortMap = new Map();
  for (const s of services) for (const [k, v] of servicePorts(s)) svcMap.set(k, v);
  const byService = new Map<string, KubeObject[]>();
  for (const s of slices) {
    const k = sliceServiceKey(s) ?? '';
    byService.set(k, [...(byService.get(k) ?? []), s]);
  }
  const endpoints: EndpointsMap = new Map();
  for (const list of byService.values()) for (const [k, v] of endpointsFromSlices(list, nodeName)) endpoints.set(k, v);
  return { services: svcMap, endpoints };
}
