/**
 * Building a Service's desired endpoints from its pods, like the
 * EndpointSlice reconciler's podToEndpoint and getEndpointPorts: one
 * endpoint per pod with its IP, ready/serving/terminating conditions, node,
 * zone and target reference, grouped by the ports the pod resolves.
 */
import {
  endpointHostname,
  findPort,
  isPodReady,
  LABEL_TOPOLOGY_ZONE,
  podIPv4,
  shouldPodBeInEndpoints,
} from '../endpointutil/index.js';
import type { Endpoint, EndpointPort, Node, Pod, Service } from '../../api/index.js';

/** The endpoints of one port mapping: the ports and the endpoints keyed by endpointKey. */
export interface DesiredPortMapping {
  ports: EndpointPort[];
  endpoints: Map<string, Endpoint>;
}

/** The identity of an endpoint across syncs (upstream hashes addresses, hostname and target). */
export function endpointKey(ep: Endpoint): string {
  return JSON.stringify([
    [...ep.addresses].sort(),
    ep.hostname ?? '',
    ep.targetRef?.namespace ?? '',
    ep.targetRef?.name ?? '',
  ]);
}

/** A stable key of a port list, so slices are grouped by the ports they carry. */
export function portMapKey(ports: readonly EndpointPort[] | null | undefined): string {
  const list = (ports ?? []).map((p) => [p.name, p.protocol, p.port, p.appProtocol ?? '']);
  list.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return JSON.stringify(list);
}

/** True when two endpoints with equal keys also agree on every other field (EndpointsEqualBeyondHash). */
export function endpointsEqual(a: Endpoint, b: Endpoint): boolean {
  const norm = (e: Endpoint): string =>
    JSON.stringify([
      e.conditions?.ready ?? null,
      e.conditions?.serving ?? null,
      e.conditions?.terminating ?? null,
      e.nodeName ?? '',
      e.zone ?? '',
      e.targetRef?.uid ?? '',
      e.targetRef?.kind ?? '',
      (e.hints?.forZones ?? []).map((z) => z.name),
    ]);
  return norm(a) === norm(b);
}

/** The endpoint ports of `pod` for `svc`; a named port the pod lacks is left out. */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined || port === 0) continue;
    const ep: EndpointPort = { name: sp.name ?? '', protocol: sp.protocol ?? 'TCP', port };
    if (sp.appProtocol !== undefined) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

/** podToEndpoint: ready = serving and not terminating, unless the Service publishes not-ready addresses. */
export function podToEndpoint(pod: Pod, node: Node | undefined, svc: Service): Endpoint {
  const serving = isPodReady(pod);
  const terminating = pod.metadata?.deletionTimestamp != null;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = {
    addresses: [podIPv4(pod)!],
    conditions: { ready, serving, terminating },
    targetRef: {
      kind: 'Pod',
      namespace: pod.metadata?.namespace ?? '',
      name: pod.metadata?.name ?? '',
      uid: pod.metadata?.uid ?? '',
    },
  };
  const hostname = endpointHostname(pod, svc.metadata?.name ?? '');
  if (hostname !== undefined) ep.hostname = hostname;
  const nodeName = pod.spec?.nodeName;
  if (nodeName !== undefined && nodeName !== '') ep.nodeName = nodeName;
  const zone = node?.metadata?.labels?.[LABEL_TOPOLOGY_ZONE];
  if (zone !== undefined && zone !== '') ep.zone = zone;
  return ep;
}

/** The Service's desired endpoints by port mapping; terminating pods are included, as upstream's slices do. */
export function desiredEndpoints(
  svc: Service,
  pods: readonly Pod[],
  nodeOf: (name: string) => Node | undefined,
): Map<string, DesiredPortMapping> {
  const out = new Map<string, DesiredPortMapping>();
  const sorted = [...pods].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const pod of sorted) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(svc, pod);
    const key = portMapKey(ports);
    let mapping = out.get(key);
    if (mapping === undefined) out.set(key, (mapping = { ports, endpoints: new Map() }));
    const ep = podToEndpoint(pod, pod.spec?.nodeName ? nodeOf(pod.spec.nodeName) : undefined, svc);
    mapping.endpoints.set(endpointKey(ep), ep);
  }
  return out;
}
