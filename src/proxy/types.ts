/**
 * The proxy's own model of Services and EndpointSlices, like upstream's
 * pkg/proxy ServicePort and Endpoint interfaces: one entry per service port,
 * keyed by its ServicePortName string ("ns/name:port"), with the fields the
 * proxiers render. Chain names are computed once and kept here, so a full
 * resync of 10k services does not hash 100k names again.
 */

/** Protocols the proxiers program. */
export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** The well-known label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** Set by the EndpointSlice controller: when the change that produced this slice happened. */
export const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
/** Services labelled with this are not handled by this proxy (upstream's service-proxy-name). */
export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
/** Services labelled with this are headless for the proxy. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** The topology-aware routing annotation (and its older name). */
export const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
export const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';

/** One port of one Service, as the proxiers see it. */
export interface ServicePortInfo {
  /** ServicePortName string: "ns/name:port", or "ns/name" for an unnamed port. */
  readonly name: string;
  readonly namespace: string;
  readonly service: string;
  readonly portName: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** 0 when the service has no node port. */
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  /** ClientIP affinity timeout in seconds; 0 without session affinity. */
  readonly stickySeconds: number;
  /** externalTrafficPolicy: Local. */
  readonly externalPolicyLocal: boolean;
  /** internalTrafficPolicy: Local. */
  readonly internalPolicyLocal: boolean;
  /** Whether topology hints may be used (topology-mode annotation or trafficDistribution). */
  readonly hintsEnabled: boolean;
  /** Cached per-mode names (chain names, hashes); filled lazily by the proxiers. */
  readonly names: NameCache;
}

/**
 * Chain names a proxier derived for one service port or endpoint. Fixed
 * fields (not a string-keyed record) keep V8's property access fast across
 * 100k endpoints.
 */
export interface NameCache {
  iptHash?: string;
  iptSvc?: string;
  iptSvl?: string;
  iptExt?: string;
  iptSep?: string;
  nftBase?: string;
  nftEndpoint?: string;
}

/** One endpoint of one service port. */
export interface Endpoint {
  readonly ip: string;
  readonly port: number;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  /** True when the endpoint runs on this proxy's node. */
  readonly isLocal: boolean;
  readonly zone: string;
  /** Zones from hints.forZones; undefined when the slice has no hints for this endpoint. */
  readonly zoneHints: readonly string[] | undefined;
  /** Cached per-mode names, as on ServicePortInfo; an Endpoint object belongs to one service port. */
  readonly names: NameCache;
}

/** "ip:port", the endpoint's identity within a service port. */
export function endpointString(ep: Pick<Endpoint, 'ip' | 'port'>): string {
  return `${ep.ip}:${ep.port}`;
}

/** The ServicePortName string, like upstream's ServicePortName.String(). */
export function servicePortName(namespace: string, service: string, portName: string): string {
  return portName === '' ? `${namespace}/${service}` : `${namespace}/${service}:${portName}`;
}

/** The node this proxy runs for: its name, zone, and whether nodes' own addresses count as local. */
export interface NodeInfo {
  readonly name: string;
  /** topology.kubernetes.io/zone of the node, "" when unknown. */
  readonly zone: string;
}

/** Service ports keyed by ServicePortName string. */
export type ServicePortMap = Map<string, ServicePortInfo>;
/** Endpoints keyed by ServicePortName string. */
export type EndpointsMap = Map<string, readonly Endpoint[]>;
