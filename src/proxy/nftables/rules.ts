/**
 * Renders the nftables mode as `nft -f` transactions, following upstream's
 * nftables proxier (its README describes the ruleset): one table
 * `ip kube-proxy`; verdict maps keyed by `ip . proto . port` (service-ips,
 * no-endpoint-services) and `proto . port` (service-nodeports,
 * no-endpoint-nodeports); a chain per service port that picks an endpoint
 * with `numgen random mod N` and DNATs to it inline (a chain per endpoint,
 * as upstream has, only for ClientIP affinity, which needs a set per
 * endpoint). A full rendering replaces the table atomically;
 * a partial one rewrites only changed services' chains and adds or deletes
 * only their map elements (upstream refills the maps on every sync; here the
 * maps are diffed, so a sync is O(changes)).
 */
import type { SyncInput } from '../proxier.js';
import { categorizeEndpoints } from '../topology.js';
import type { Endpoint, ServicePortInfo } from '../types.js';
import { FAMILY, TABLE, affinitySet, endpointChain, externalChain, localChain, serviceChain } from './names.js';
import { BASE_CHAINS, BASE_MAPS, baseRules, type NftConfig } from './base.js';

/** One map or set element a service port owns. */
interface Element {
  readonly map: string;
  readonly key: string;
  /** The verdict, or undefined for a set element. */
  readonly value?: string;
}

/** What one service port has in the kernel. */
interface PortObjects {
  readonly chains: Map<string, string[]>;
  readonly sets: Map<string, number>;
  readonly elements: Element[];
}

/** The objects the proxier believes are in the kernel, per service port; updated by `commit`. */
export class NftState {
  ports = new Map<string, PortObjects>();
  /** References to each set element ("set|key"), since several ports share one. */
  clusterIPs = new Map<string, number>();
  rules = 0;
  elements = 0;
}

/** One rendering: the transaction text and the state it leads to. */
export interface NftRendering {
  readonly text: string;
  readonly ports: Map<string, PortObjects>;
  readonly clusterIPs: Map<string, number>;
  readonly rules: number;
  readonly elements: number;
}

const el = (e: Element): string => (e.value === undefined ? e.key : `${e.key} : ${e.value}`);

/** Computes one service port's chains, sets and elements. */
function portObjects(svc: ServicePortInfo, endpoints: readonly Endpoint[], input: SyncInput, cfg: NftConfig): PortObjects {
  const eps = categorizeEndpoints(endpoints, svc, input.node);
  const p = svc.protocol.toLowerCase();
  const chains = new Map<string, string[]>();
  const sets = new Map<string, number>();
  const elements: Element[] = [];
  const usesCluster = eps.cluster.length > 0;
  const usesLocal = (svc.internalPolicyLocal || svc.externalPolicyLocal) && eps.local.length > 0;
  const external = svc.nodePort !== 0 || svc.externalIPs.length > 0;
  const svcC = serviceChain(svc);
  const locC = localChain(svc);
  const extC = externalChain(svc);

  const hairpin = new Set<string>();
  const balance = (chain: string, list: readonly Endpoint[], head: string[]): void => {
    const rules = [...head];
    if (svc.stickySeconds > 0) {
      // Affinity needs a set per endpoint, updated when that endpoint is chosen: upstream's chain per endpoint.
      for (const ep of list) rules.push(`ip saddr @${affinitySet(svc, ep)} goto ${endpointChain(svc, ep)}`);
      rules.push(`numgen random mod ${list.length} vmap { ${list.map((ep, i) => `${i} : goto ${endpointChain(svc, ep)}`).join(', ')} }`);
    } else {
      // kscale's shape: the endpoint is chosen inline by a numgen map, so the table holds a chain per service,
      // not per endpoint (10x fewer chains; nft's per-transaction cost grows with the chain count).
      // Hairpin traffic (an endpoint reaching itself) is masqueraded in postrouting through @hairpin-endpoints.
      if (list.length === 1) rules.push(`meta l4proto ${p} dnat to ${list[0]!.ip}:${list[0]!.port}`);
      else rules.push(`meta l4proto ${p} dnat ip to numgen random mod ${list.length} map { ${list.map((ep, i) => `${i} : ${ep.ip} . ${ep.port}`).join(', ')} }`);
      for (const ep of list) hairpin.add(ep.ip);
    }
    chains.set(chain, rules);
  };
  if (usesCluster) {
    const head: string[] = [];
    if (cfg.masqueradeAll) head.push('jump mark-for-masquerade');
    else if (cfg.clusterCIDR !== '') head.push(`ip daddr ${svc.clusterIP} ${p} dport ${svc.port} ip saddr != ${cfg.clusterCIDR} jump mark-for-masquerade`);
    balance(svcC, eps.cluster, head);
  }
  if (usesLocal) balance(locC, eps.local, []);
  if (svc.stickySeconds > 0) {
    for (const ep of new Set([...eps.cluster, ...eps.local])) {
      sets.set(affinitySet(svc, ep), svc.stickySeconds);
      chains.set(endpointChain(svc, ep), [`ip saddr ${ep.ip} jump mark-for-masquerade`, `update @${affinitySet(svc, ep)} { ip saddr }`, `meta l4proto ${p} dnat to ${ep.ip}:${ep.port}`]);
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
    if (target !== undefined) rules.push(`goto ${target}`);
    else rules.push('drop');
    chains.set(extC, rules);
  }

  const tuple = (ip: string): string => `${ip} . ${p} . ${svc.port}`;
  elements.push({ map: 'cluster-ips', key: svc.clusterIP });
  for (const ip of hairpin) elements.push({ map: 'hairpin-endpoints', key: `${ip} . ${ip}` });
  const internal = svc.internalPolicyLocal ? (usesLocal ? locC : undefined) : usesCluster ? svcC : undefined;
  if (!eps.hasEndpoints) elements.push({ map: 'no-endpoint-services', key: tuple(svc.clusterIP), value: 'goto reject-chain' });
  else if (internal === undefined) elements.push({ map: 'no-endpoint-services', key: tuple(svc.clusterIP), value: 'drop' });
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
  return { chains, sets, elements };
}

/** Renders a transaction; `state` is what the kernel holds (ignored on a full rendering). */
export function renderNftables(input: SyncInput, cfg: NftConfig, state: NftState): NftRendering {
  const t = `${FAMILY} ${TABLE}`;
  const head: string[] = [];
  const decl: string[] = [];
  const flush: string[] = [];
  const rules: string[] = [];
  const elemDel = new Map<string, string[]>();
  const elemAdd = new Map<string, string[]>();
  const tail: string[] = [];
  const ports = input.full ? new Map<string, PortObjects>() : new Map(state.ports);
  const clusterIPs = input.full ? new Map<string, number>() : new Map(state.clusterIPs);
  let ruleCount = input.full ? 0 : state.rules;
  let elementCount = input.full ? 0 : state.elements;
  const push = (m: Map<string, string[]>, k: string, v: string): void => {
    const l = m.get(k);
    if (l === undefined) m.set(k, [v]);
    else l.push(v);
  };

  if (input.full) {
    // Create-then-delete makes the delete safe when the table is absent; the whole file is one atomic transaction.
    head.push(`add table ${t}`, `delete table ${t}`, `add table ${t} { comment "rules for kube-proxy" ; }`);
    for (const [name, spec] of BASE_CHAINS) decl.push(`add chain ${t} ${name}${spec === '' ? '' : ` { ${spec} ; }`}`);
    for (const [name, spec] of BASE_MAPS) decl.push(`add ${spec.includes(': verdict') ? 'map' : 'set'} ${t} ${name} { ${spec} ; }`);
    for (const [chain, list] of baseRules(cfg)) {
      for (const r of list) rules.push(`add rule ${t} ${chain} ${r}`);
      ruleCount += list.length;
    }
  }

  const names = input.full ? [...input.services.keys()] : [...input.changed];
  for (const name of names) {
    const svc = input.services.get(name);
    const old = input.full ? undefined : state.ports.get(name);
    const now = svc === undefined ? undefined : portObjects(svc, input.endpoints.get(name) ?? [], input, cfg);
    if (now === undefined) ports.delete(name);
    else ports.set(name, now);
    for (const [set, timeout] of now?.sets ?? []) if (old?.sets.has(set) !== true) decl.push(`add set ${t} ${set} { type ipv4_addr ; flags dynamic,timeout ; timeout ${timeout}s ; }`);
    for (const [chain, list] of now?.chains ?? []) {
      decl.push(`add chain ${t} ${chain}`);
      if (old?.chains.has(chain) === true) flush.push(`flush chain ${t} ${chain}`);
      for (const r of list) rules.push(`add rule ${t} ${chain} ${r}`);
      ruleCount += list.length;
    }
    for (const [chain, list] of old?.chains ?? []) {
      ruleCount -= list.length;
      if (now?.chains.has(chain) !== true) tail.push(`flush chain ${t} ${chain}`, `delete chain ${t} ${chain}`);
    }
    for (const set of old?.sets.keys() ?? []) if (now?.sets.has(set) !== true) tail.push(`delete set ${t} ${set}`);
    // Elements: delete what changed or went, add what is new; set elements (cluster IPs, hairpin pairs) are shared, so counted.
    const newEls = new Map((now?.elements ?? []).map((e) => [`${e.map}|${e.key}`, e]));
    const oldEls = new Map((old?.elements ?? []).map((e) => [`${e.map}|${e.key}`, e]));
    for (const [k, e] of oldEls) {
      const n = newEls.get(k);
      if (n !== undefined && n.value === e.value) continue;
      if (e.value === undefined) {
        const c = (clusterIPs.get(k) ?? 1) - 1;
        if (c > 0) {
          clusterIPs.set(k, c);
          continue;
        }
        clusterIPs.delete(k);
      }
      push(elemDel, e.map, e.key);
      elementCount--;
    }
    for (const [k, e] of newEls) {
      const o = oldEls.get(k);
      if (o !== undefined && o.value === e.value) continue;
      if (e.value === undefined) {
        const c = clusterIPs.get(k) ?? 0;
        clusterIPs.set(k, c + 1);
        if (c > 0) continue;
      }
      push(elemAdd, e.map, el(e));
      elementCount++;
    }
  }
  const elems: string[] = [];
  for (const [m, keys] of elemDel) elems.push(`delete element ${t} ${m} { ${keys.join(', ')} }`);
  for (const [m, list] of elemAdd) elems.push(`add element ${t} ${m} { ${list.join(', ')} }`);
  const text = [...head, ...decl, ...flush, ...rules, ...elems, ...tail].join('\n');
  return { text: text === '' ? '' : `${text}\n`, ports, clusterIPs, rules: ruleCount, elements: elementCount };
}

/** Records a rendering as the kernel's state once `nft -f` accepted it. */
export function commitNftables(state: NftState, r: NftRendering): void {
  state.ports = r.ports;
  state.clusterIPs = r.clusterIPs;
  state.rules = r.rules;
  state.elements = r.elements;
}
