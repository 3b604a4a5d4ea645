/**
 * nftables object names as upstream's nftables proxier builds them: a kind
 * prefix, an 8-character hash, then the readable identity
 * ("service-ULMVA6XW-ns/name/tcp/http", "endpoint-…__10.0.0.5/8080"), so
 * `nft list table` can be read by eye. Names are cached on the objects.
 */
import { hash16 } from '../chain_names.js';
import type { Endpoint, ServicePortInfo } from '../types.js';

/** The table every nftables-mode object lives in. */
export const TABLE = 'kube-proxy';
/** The family of that table (kscale is IPv4-only). */
export const FAMILY = 'ip';

function base(svc: ServicePortInfo): string {
  return (svc.names.nftBase ??= `${hash16(svc.name + svc.protocol.toLowerCase()).slice(0, 8)}-${svc.namespace}/${svc.service}/${svc.protocol.toLowerCase()}/${svc.portName}`);
}

/** The Cluster-policy chain of a service port. */
export const serviceChain = (svc: ServicePortInfo): string => `service-${base(svc)}`;
/** The Local-policy chain of a service port. */
export const localChain = (svc: ServicePortInfo): string => `local-${base(svc)}`;
/** The entry chain for external traffic. */
export const externalChain = (svc: ServicePortInfo): string => `external-${base(svc)}`;

function epBase(svc: ServicePortInfo, ep: Endpoint): string {
  return (ep.names.nftEndpoint ??= `${hash16(svc.name + svc.protocol.toLowerCase() + ep.ip + ep.port).slice(0, 8)}-${svc.namespace}/${svc.service}/${svc.protocol.toLowerCase()}/${svc.portName}__${ep.ip}/${ep.port}`);
}

/** One endpoint's DNAT chain. */
export const endpointChain = (svc: ServicePortInfo, ep: Endpoint): string => `endpoint-${epBase(svc, ep)}`;
/** One endpoint's ClientIP affinity set. */
export const affinitySet = (svc: ServicePortInfo, ep: Endpoint): string => `affinity-${epBase(svc, ep)}`;
