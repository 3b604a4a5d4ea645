/**
 * Pod-to-endpoint helpers shared by the EndpointSlice and Endpoints
 * controllers, like pkg/controller/util/endpoint: which pods belong in
 * endpoints, pod readiness, target-port lookup, and which pod changes matter.
 */
import { getCondition } from '../nodeutil/index.js';
import type { Pod, ServicePort } from '../../api/index.js';

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return getCondition(pod.status?.conditions, 'Ready')?.status === 'True';
}

/** The pod's first IPv4 address (kscale is single-stack), or undefined. */
export function podIPv4(pod: Pod): string | undefined {
  const ips = pod.status?.podIPs?.map((p) => p.ip) ?? [];
  if (pod.status?.podIP !== undefined && pod.status.podIP !== '') ips.unshift(pod.status.podIP);
  return ips.find((ip) => ip.includes('.'));
}

/**
 * ShouldPodBeInEndpoints: a terminal pod (Succeeded or Failed, whatever its
 * restart policy, as upstream since 1.27), no IP or, unless
 * `includeTerminating`, a deletion keep a pod out. So a deleted pod leaves
 * the slices when the kubelet reports its containers exited, not only at the
 * final DELETE.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  if (podIPv4(pod) === undefined) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp != null) return false;
  return true;
}

/** podutil.FindPort: a numeric targetPort as is, a named one looked up in the pod's containers. */
export function findPort(pod: Pod, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  const asNumber = Number(target);
  if (target !== '' && Number.isInteger(asNumber)) return asNumber;
  const protocol = port.protocol ?? 'TCP';
  for (const c of pod.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  return undefined;
}

/** The hostname an endpoint carries: the pod's hostname when its subdomain is the Service's name. */
export function endpointHostname(pod: Pod, serviceName: string): string | undefined {
  const h = pod.spec?.hostname;
  return h !== undefined && h !== '' && pod.spec?.subdomain === serviceName ? h : undefined;
}

/** The part of a pod that endpoints reflect; two pods with equal keys give equal endpoints. */
function endpointRelevant(pod: Pod): string {
  return JSON.stringify([
    pod.status?.podIP,
    pod.status?.podIPs,
    isPodReady(pod),
    pod.status?.phase,
    pod.metadata?.deletionTimestamp ?? null,
    pod.spec?.nodeName,
    pod.spec?.hostname,
    pod.spec?.subdomain,
    pod.spec?.containers?.map((c) => c.ports),
  ]);
}

/** podEndpointsChanged: whether an update changes the pod's endpoints, and whether its labels changed. */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): { labelsChanged: boolean; endpointChanged: boolean } {
  const labelsChanged = JSON.stringify(oldPod.metadata?.labels ?? {}) !== JSON.stringify(newPod.metadata?.labels ?? {});
  return { labelsChanged, endpointChanged: endpointRelevant(oldPod) !== endpointRelevant(newPod) };
}
