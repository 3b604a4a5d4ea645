/**
 * The IPVS mode's desired state, as upstream's IPVS proxier builds it: a
 * virtual server per cluster IP:port (and per external IP and per node
 * address:nodePort) with the configured scheduler, ClientIP affinity as IPVS
 * persistence, and the endpoints as masqueraded real servers of weight 1.
 * Every cluster IP is also an address on the kube-ipvs0 dummy interface so
 * the node accepts the traffic for IPVS to take.
 */
import { categorizeEndpoints } from '../topology.js';
import type { Endpoint, NodeInfo, ServicePortInfo } from '../types.js';

/** --ipvs-scheduler values kscale renders (round robin, least connection, source hashing). */
export type IpvsScheduler = 'rr' | 'lc' | 'sh';

/** One real server. */
export interface RealServer {
  readonly addr: string;
  readonly port: number;
  readonly weight: number;
}

/** One virtual server. */
export interface VirtualServer {
  readonly proto: 'tcp' | 'udp' | 'sctp';
  readonly addr: string;
  readonly port: number;
  readonly scheduler: IpvsScheduler;
  /** Persistence timeout in seconds (ClientIP affinity); 0 for none. */
  readonly persistSeconds: number;
  readonly reals: readonly RealServer[];
}

/** The interface upstream binds service addresses to. */
export const DUMMY_INTERFACE = 'kube-ipvs0';

/** "tcp:10.96.0.10:80", the identity of a virtual server. */
export function vsKey(vs: Pick<VirtualServer, 'proto' | 'addr' | 'port'>): string {
  return `${vs.proto}:${vs.addr}:${vs.port}`;
}

/** What one service port needs: its virtual servers and the addresses bound on the dummy interface. */
export interface PortVirtualServers {
  readonly servers: VirtualServer[];
  readonly boundAddrs: string[];
}

const reals = (eps: readonly Endpoint[]): RealServer[] => eps.map((e) => ({ addr: e.ip, port: e.port, weight: 1 }));

/** Virtual servers for one service port; node addresses carry its NodePort. */
export function portVirtualServers(
  svc: ServicePortInfo,
  endpoints: readonly Endpoint[],
  node: NodeInfo,
  nodeIPs: readonly string[],
  scheduler: IpvsScheduler,
): PortVirtualServers {
  const eps = categorizeEndpoints(endpoints, svc, node);
  const proto = svc.protocol.toLowerCase() as VirtualServer['proto'];
  const base = { proto, scheduler, persistSeconds: svc.stickySeconds };
  const internal = reals(svc.internalPolicyLocal ? eps.local : eps.cluster);
  // Reals are never edited in place, so servers of the same policy share one list; a ClusterIP-only port needs none.
  const hasExternal = svc.externalIPs.length > 0 || svc.nodePort !== 0;
  const external = !hasExternal
    ? []
    : svc.externalPolicyLocal === svc.internalPolicyLocal
      ? internal
      : reals(svc.externalPolicyLocal ? eps.local : eps.cluster);
  const servers: VirtualServer[] = [{ ...base, addr: svc.clusterIP, port: svc.port, reals: internal }];
  for (const ip of svc.externalIPs) servers.push({ ...base, addr: ip, port: svc.port, reals: external });
  if (svc.nodePort !== 0)
    for (const ip of nodeIPs) servers.push({ ...base, addr: ip, port: svc.nodePort, reals: external });
  return { servers, boundAddrs: [svc.clusterIP, ...svc.externalIPs] };
}
