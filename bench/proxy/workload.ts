/**
 * The benchmark's services: N ClusterIP services of 10 endpoints each, built
 * in memory as a synced proxy would hold them. Every service uses the same
 * ten backend addresses (the lab's listeners), so any service can be
 * connected to for real. Names sort in creation order, so svc-00000 is the
 * first rule iptables walks and the last service the last.
 */
import type { KubeObject } from '../../src/client/index.js';
import type { EndpointsMap, ServicePortMap } from '../../src/proxy/index.js';
import { endpointIP } from '../../src/proxy/testing/netns.js';
import { proxyState, service, slice } from '../../src/proxy/testing/objects.js';

/** Endpoints per service, as the issue asks. */
export const ENDPOINTS_PER_SERVICE = 10;

/** The i-th service's cluster IP, inside 10.96.0.0/12. */
export function clusterIP(i: number): string {
  const n = i + 1;
  return `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

/** The i-th service's name. */
export function serviceName(i: number): string {
  return `svc-${String(i).padStart(5, '0')}`;
}

/** The state for N services; `shift` rotates endpoint addresses, to make a changed version of one service. */
export function workload(n: number): {
  services: ServicePortMap;
  endpoints: EndpointsMap;
  objects: { services: KubeObject[]; slices: KubeObject[] };
} {
  const services: KubeObject[] = [];
  const slices: KubeObject[] = [];
  const ips = Array.from({ length: ENDPOINTS_PER_SERVICE }, (_, j) => endpointIP(j));
  for (let i = 0; i < n; i++) {
    services.push(service(serviceName(i), clusterIP(i)));
    slices.push(slice(serviceName(i), `${serviceName(i)}-1`, ips));
  }
  return { ...proxyState(services, slices, 'bench-node'), objects: { services, slices } };
}

/** Replaces the endpoints of service i by a list with one address swapped for a fresh one (endpoint 10). */
export function changeOne(endpoints: EndpointsMap, i: number): string {
  const name = `default/${serviceName(i)}:p`;
  const ips = [
    ...Array.from({ length: ENDPOINTS_PER_SERVICE - 1 }, (_, j) => endpointIP(j)),
    endpointIP(ENDPOINTS_PER_SERVICE),
  ];
  const fresh = proxyState([], [slice(serviceName(i), `${serviceName(i)}-1`, ips)], 'bench-node').endpoints.get(name)!;
  endpoints.set(name, fresh);
  return name;
}
