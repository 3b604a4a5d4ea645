/**
 * What one service port needs in the nftables table: its chains (with their
 * rules), its affinity sets, and its elements in the shared maps and sets.
 *
 * Endpoints are picked without anonymous maps: each balancing chain owns a
 * block of N consecutive slots in a shared map `endpoint-dnat-<proto>-<shard>`
 * and DNATs through `numgen random mod N offset <first slot> map @endpoint-dnat-…`.
 * One anonymous map per service made the kernel pay O(maps) for every map it
 * created (name allocation, lookups), so a 10k-service load was O(n²).
 */
import { categorizeEndpoints } from '../topology.js';
import type { Endpoint, NodeInfo, ServicePortInfo } from '../types.js';
import { endpointMap, type NftConfig } from './base.js';
import { affinitySet, endpointChain, externalChain, localChain, serviceChain } from './names.js';

/** One map or set element a service port owns. */
export interface Element {
  readonly map: string;
  readonly key: string;
  /** The data (verdict or "ip . port"), or undefined for a set element. */
  readonly value?: string;
}

/** A balancing chain's slots in `endpoint-dnat`: reused while its endpoint list is unchanged. */
export interface SlotBlock {
  /** The endpoint list the block holds ("ip . port,ip . port"). */
  readonly key: string;
  readonly offset: number;
  readonly size: number;
}

/** What one service port has in the kernel. */
export interface PortObjects {
  readonly chains: Map<string, string[]>;
  /** Affinity sets and their timeout in seconds. */
  readonly sets: Map<string, number>;
  readonly elements: Element[];
  /** Slot blocks by balancing chain. */
  readonly blocks: Map<string, SlotBlock>;
}

/** Hands out slot blocks; `next` is committed with the rendering. */
export interface SlotAllocator {
  next: number;
}

/** Everything portObjects reads besides the port itself. */
export interface PortContext {
  readonly node: NodeInfo;
  readonly cfg: NftConfig;
  readonly slots: SlotAllocator;
}

const dnatTarget = (ep: Endpoint): string => `${ep.ip} . ${ep.port}`;

/** Computes one service port's chains, sets and elements; `old` lends its slot blocks when the endpoints are the same. */
export function portObjects(
  svc: ServicePortInfo,
  endpoints: readonly Endpoint[],
  ctx: PortContext,
  old: PortObjects | undefined,
): PortObjects {
  const eps = categorizeEndpoints(endpoints, svc, ctx.node);
  const p = svc.protocol.toLowerCase();
  const chains = new Map<string, string[]>();
  const sets = new Map<string, number>();
  const elements: Element[] = [];
  const blocks = new Map<string, SlotBlock>();
  const usesCluster = eps.cluster.length > 0;
  const usesLocal = (svc.internalPolicyLocal || svc.externalPolicyLocal) && eps.local.length > 0;
  const external = svc.nodePort !== 0 || svc.externalIPs.length > 0;
  const svcC = serviceChain(svc);
  const locC = localChain(svc);
  const extC = externalChain(svc);

  const hairpin = new Set<string>();
  const balance = (chain: string, list: readonly Endpoint[], rules: string[]): void => {
    if (svc.stickySeconds > 0) {
      // Affinity needs a set per endpoint, updated when that endpoint is chosen: upstream's chain per endpoint.
      for (const ep of list) rules.push(`ip saddr @${affinitySet(svc, ep)} goto ${endpointChain(svc, ep)}`);
      rules.push(
        `numgen random mod ${list.length} vmap { ${list.map((ep, i) => `${i} : goto ${endpointChain(svc, ep)}`).join(', ')} }`,
      );
    } else if (list.length === 1) {
      rules.push(`meta l4proto ${p} dnat to ${list[0]!.ip}:${list[0]!.port}`);
      hairpin.add(list[0]!.ip);
    } else {
      // Hairpin traffic (an endpoint reaching itself) is masqueraded in postrouting through @hairpin-endpoints.
      // Each target string is built once, for the block's key and its element; the key is one flat string.
      const targets = new Array<string>(list.length);
      for (let i = 0; i < list.length; i++) {
        targets[i] = dnatTarget(list[i]!);
        hairpin.add(list[i]!.ip);
      }
      const key = targets.join(',');
      const prev = old?.blocks.get(chain);
      const block = prev !== undefined && prev.key === key ? prev : { key, offset: ctx.slots.next, size: list.length };
      if (block !== prev) ctx.slots.next += list.length;
      blocks.set(chain, block);
      const map = endpointMap(chain, p);
      for (let i = 0; i < list.length; i++) elements.push({ map, key: String(block.offset + i), value: targets[i] });
      rules.push(`meta l4proto ${p} dnat ip to numgen random mod ${list.length} offset ${block.offset} map @${map}`);
    }
    chains.set(chain, rules);
  };
  if (usesCluster) {
    const head: string[] = [];
    if (ctx.cfg.masqueradeAll) head.push('jump mark-for-masquerade');
    else if (ctx.cfg.clusterCIDR !== '')
      head.push(
        `ip daddr ${svc.clusterIP} ${p} dport ${svc.port} ip saddr != ${ctx.cfg.clusterCIDR} jump mark-for-masquerade`,
      );
    balance(svcC, eps.cluster, head);
  }
  if (usesLocal) balance(locC, eps.local, []);
  if (svc.stickySeconds > 0) {
    for (const ep of new Set([...eps.cluster, ...eps.local])) {
      sets.set(affinitySet(svc, ep), svc.stickySeconds);
      chains.set(endpointChain(svc, ep), [
        `ip saddr ${ep.ip} jump mark-for-masquerade`,
        `update @${affinitySet(svc, ep)} { ip saddr }`,
        `meta l4proto ${p} dnat to ${ep.ip}:${ep.port}`,
      ]);
    }
  }
  if (external && eps.hasEndpoints) {
    const target = svc.externalPolicyLocal ? (usesLocal ? locC : undefined) : usesCluster ? svcC : undefined;
    const rules: string[] = [];
    if (!svc.externalPolicyLocal) rules.push('jump mark-for-masquerade');
    else {
      // Local policy keeps the client address, except for the node's own traffic, which goes cluster-wide.
      rules.push('fib saddr type local jump mark-for-masquerade');
      if (usesCluster) rules.push(`fib saddr type local goto ${svcC}`);
    }
    rules.push(target !== undefined ? `goto ${target}` : 'drop');
    chains.set(extC, rules);
  }

  const tuple = (ip: string): string => `${ip} . ${p} . ${svc.port}`;
  elements.push({ map: 'cluster-ips', key: svc.clusterIP });
  for (const ip of hairpin) elements.push({ map: 'hairpin-endpoints', key: `${ip} . ${ip}` });
  const internal = svc.internalPolicyLocal ? (usesLocal ? locC : undefined) : usesCluster ? svcC : undefined;
  if (!eps.hasEndpoints)
    elements.push({ map: 'no-endpoint-services', key: tuple(svc.clusterIP), value: 'goto reject-chain' });
  else if (internal === undefined)
    elements.push({ map: 'no-endpoint-services', key: tuple(svc.clusterIP), value: 'drop' });
  else elements.push({ map: 'service-ips', key: tuple(svc.clusterIP), value: `goto ${internal}` });
  for (const ip of svc.externalIPs) {
    if (eps.hasEndpoints) elements.push({ map: 'service-ips', key: tuple(ip), value: `goto ${extC}` });
    else elements.push({ map: 'no-endpoint-services', key: tuple(ip), value: 'goto reject-chain' });
  }
  if (svc.nodePort !== 0) {
    const key = `${p} . ${svc.nodePort}`;
    if (eps.hasEndpoints) elements.push({ map: 'service-nodeports', key, value: `goto ${extC}` });
    else elements.push({ map: 'no-endpoint-nodeports', key, value: 'goto reject-chain' });
  }
  return { chains, sets, elements, blocks };
}
