/**
 * Service → ServicePortInfo, like upstream's newBaseServiceInfo: one entry per
 * port, skipping what kube-proxy skips (headless and ExternalName services,
 * services claimed by another proxy through service-proxy-name).
 */
import type { KubeObject, ServiceSpec } from '../api/index.js';
import {
  HEADLESS_LABEL,
  SERVICE_PROXY_NAME_LABEL,
  TOPOLOGY_HINTS_ANNOTATION,
  TOPOLOGY_MODE_ANNOTATION,
  servicePortName,
  type Protocol,
  type ServicePortInfo,
  type ServicePortMap,
} from './types.js';

/** Upstream's default ClientIP affinity timeout (3 h). */
export const DEFAULT_STICKY_SECONDS = 10_800;

/** True when kube-proxy ignores the service entirely. */
export function shouldSkipService(svc: KubeObject): boolean {
  const spec = (svc.spec ?? {}) as ServiceSpec;
  const labels = svc.metadata?.labels ?? {};
  if (labels[SERVICE_PROXY_NAME_LABEL] !== undefined || labels[HEADLESS_LABEL] !== undefined) return true;
  if (spec.type === 'ExternalName') return true;
  return spec.clusterIP === undefined || spec.clusterIP === '' || spec.clusterIP === 'None';
}

function hintsEnabled(svc: KubeObject, spec: ServiceSpec): boolean {
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== '') return true;
  const a = svc.metadata?.annotations ?? {};
  const mode = a[TOPOLOGY_MODE_ANNOTATION] ?? a[TOPOLOGY_HINTS_ANNOTATION];
  return mode !== undefined && mode !== '' && mode.toLowerCase() !== 'disabled';
}

/** The service's ports as the proxy sees them; an empty map for skipped (or absent) services. */
export function servicePorts(svc: KubeObject | undefined): ServicePortMap {
  const out: ServicePortMap = new Map();
  if (svc === undefined || shouldSkipService(svc)) return out;
  const spec = (svc.spec ?? {}) as ServiceSpec;
  const namespace = svc.metadata?.namespace ?? '';
  const service = svc.metadata?.name ?? '';
  const sticky =
    spec.sessionAffinity === 'ClientIP'
      ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_STICKY_SECONDS)
      : 0;
  const hints = hintsEnabled(svc, spec);
  for (const p of spec.ports ?? []) {
    if (typeof p.port !== 'number') continue;
    const portName = p.name ?? '';
    const name = servicePortName(namespace, service, portName);
    out.set(name, {
      name,
      namespace,
      service,
      portName,
      clusterIP: spec.clusterIP!,
      port: p.port,
      protocol: (p.protocol ?? 'TCP') as Protocol,
      nodePort: typeof p.nodePort === 'number' ? p.nodePort : 0,
      externalIPs: spec.externalIPs ?? [],
      stickySeconds: sticky,
      externalPolicyLocal: spec.externalTrafficPolicy === 'Local',
      internalPolicyLocal: spec.internalTrafficPolicy === 'Local',
      hintsEnabled: hints,
      names: {},
    });
  }
  return out;
}

/** Whether two service ports render the same rules (ignoring cached names). */
export function sameServicePort(a: ServicePortInfo, b: ServicePortInfo): boolean {
  return (
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.protocol === b.protocol &&
    a.nodePort === b.nodePort &&
    a.stickySeconds === b.stickySeconds &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    a.hintsEnabled === b.hintsEnabled &&
    a.externalIPs.join(',') === b.externalIPs.join(',')
  );
}
