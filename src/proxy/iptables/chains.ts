/**
 * kube-proxy's iptables chain names: fixed top-level chains and per-service
 * chains named by a hash, as upstream's servicePortChainName and
 * servicePortEndpointChainName do. Names are cached on the service port and
 * endpoint objects.
 */
import { hash16 } from '../chain_names.js';
import { endpointString, type Endpoint, type ServicePortInfo } from '../types.js';

export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';

/** Top-level nat chains, rewritten on every sync. */
export const NAT_TOP_CHAINS = [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ] as const;
/** Top-level filter chains, rewritten on every sync. */
export const FILTER_TOP_CHAINS = [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD] as const;

/** Prefixes of per-service chains (the ones a cleanup or stale-chain sweep removes). */
export const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-SEP-'] as const;

/** A jump from a built-in chain into ours, ensured with `iptables -C`/`-I` like upstream's iptablesJumpChains. */
export interface JumpRule {
  table: 'nat' | 'filter';
  from: string;
  to: string;
  comment: string;
  extra: string[];
}

const NEW = ['-m', 'conntrack', '--ctstate', 'NEW'];

/** The jumps upstream installs (less the firewall and health-check chains kscale does not program). */
export const JUMP_RULES: readonly JumpRule[] = [
  {
    table: 'filter',
    from: 'INPUT',
    to: KUBE_EXTERNAL_SERVICES,
    comment: 'kubernetes externally-visible service portals',
    extra: NEW,
  },
  {
    table: 'filter',
    from: 'FORWARD',
    to: KUBE_EXTERNAL_SERVICES,
    comment: 'kubernetes externally-visible service portals',
    extra: NEW,
  },
  { table: 'filter', from: 'FORWARD', to: KUBE_SERVICES, comment: 'kubernetes service portals', extra: NEW },
  { table: 'filter', from: 'OUTPUT', to: KUBE_SERVICES, comment: 'kubernetes service portals', extra: NEW },
  { table: 'filter', from: 'FORWARD', to: KUBE_FORWARD, comment: 'kubernetes forwarding rules', extra: [] },
  { table: 'nat', from: 'OUTPUT', to: KUBE_SERVICES, comment: 'kubernetes service portals', extra: [] },
  { table: 'nat', from: 'PREROUTING', to: KUBE_SERVICES, comment: 'kubernetes service portals', extra: [] },
  { table: 'nat', from: 'POSTROUTING', to: KUBE_POSTROUTING, comment: 'kubernetes postrouting rules', extra: [] },
];

/** KUBE-SVC-…: the Cluster-policy chain of a service port. */
export function svcChain(svc: ServicePortInfo): string {
  return (svc.names.iptSvc ??= `KUBE-SVC-${portHash(svc)}`);
}
/** KUBE-SVL-…: the Local-policy chain. */
export function svlChain(svc: ServicePortInfo): string {
  return (svc.names.iptSvl ??= `KUBE-SVL-${portHash(svc)}`);
}
/** KUBE-EXT-…: the entry for external traffic (NodePorts, external IPs). */
export function extChain(svc: ServicePortInfo): string {
  return (svc.names.iptExt ??= `KUBE-EXT-${portHash(svc)}`);
}
/** KUBE-SEP-…: one endpoint of a service port. */
export function sepChain(svc: ServicePortInfo, ep: Endpoint): string {
  return (ep.names.iptSep ??= `KUBE-SEP-${hash16(svc.name + svc.protocol.toLowerCase() + endpointString(ep))}`);
}

function portHash(svc: ServicePortInfo): string {
  return (svc.names.iptHash ??= hash16(svc.name + svc.protocol.toLowerCase()));
}
