/**
 * Renders kube-proxy's iptables layout as `iptables-restore` input, like
 * upstream's iptables proxier: nat KUBE-SERVICES → KUBE-SVC-* (or KUBE-SVL-*
 * for Local policy) → KUBE-SEP-* with `statistic` random balancing and
 * `recent` ClientIP affinity; KUBE-NODEPORTS → KUBE-EXT-*; KUBE-MARK-MASQ and
 * KUBE-POSTROUTING; filter REJECT rules for services without endpoints.
 * A partial rendering rewrites the top-level chains (always O(services), as
 * upstream's are) but only the per-service chains of changed ports.
 */
import type { SyncInput } from '../proxier.js';
import { categorizeEndpoints } from '../topology.js';
import type { Endpoint, ServicePortInfo } from '../types.js';
import {
  FILTER_TOP_CHAINS,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_SERVICES,
  NAT_TOP_CHAINS,
  extChain,
  sepChain,
  svcChain,
  svlChain,
} from './chains.js';

/** Renderer knobs with upstream's flag names. */
export interface IptablesConfig {
  /** --iptables-masquerade-bit (14 → mark 0x4000). */
  masqueradeBit: number;
  /** --masquerade-all: SNAT all service traffic. */
  masqueradeAll: boolean;
  /** --cluster-cidr: traffic from outside it to a cluster IP is masqueraded; "" for none. */
  clusterCIDR: string;
}

/** Upstream's largeClusterEndpointsThreshold. */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

/** Upstream's defaults. */
export const DEFAULT_IPTABLES_CONFIG: IptablesConfig = { masqueradeBit: 14, masqueradeAll: false, clusterCIDR: '' };

/** One rendering. */
export interface IptablesRendering {
  /** The whole iptables-restore input (filter then nat). */
  readonly restore: string;
  /** Rules written per chain ("table/chain" → count), for the chains this rendering rewrote. */
  readonly written: Map<string, number>;
  /** Upstream's large-cluster mode (over 1,000 endpoints): per-endpoint comments are left out. */
  readonly largeClusterMode: boolean;
  /** Per-service nat chains that exist after this rendering. */
  readonly active: Set<string>;
  /** Stale per-service chains this rendering deletes. */
  readonly deleted: string[];
}

// Upstream caches these strings: 1/n with ten decimals.
const probabilities: string[] = [];
function probability(n: number): string {
  return (probabilities[n] ??= (1 / n).toFixed(10));
}

class Writer {
  readonly chains: string[] = [];
  readonly rules: string[] = [];
  /** Rules per chain (this writer's table only). */
  readonly counts = new Map<string, number>();
  constructor(readonly table: string) {}
  declare(chain: string): void {
    this.chains.push(`:${chain} - [0:0]`);
    this.counts.set(chain, 0);
  }
  rule(chain: string, rest: string): void {
    this.rules.push(`-A ${chain} ${rest}`);
    this.counts.set(chain, (this.counts.get(chain) ?? 0) + 1);
  }
  /** Adds lines already formatted as `-A chain …` (counted by the caller). */
  lines(chain: string, lines: string[]): void {
    for (const l of lines) this.rules.push(l);
    this.counts.set(chain, (this.counts.get(chain) ?? 0) + lines.length);
  }
  text(): string {
    return `*${this.table}\n${this.chains.join('\n')}\n${this.rules.join('\n')}${this.rules.length ? '\n' : ''}COMMIT\n`;
  }
}

const q = (s: string): string => `"${s}"`;
const proto = (svc: ServicePortInfo): string => {
  const p = svc.protocol.toLowerCase();
  return `-m ${p} -p ${p}`;
};

/** Renders the rules for `input`; `existing` holds per-service nat chains believed present in the kernel. */
export function renderIptables(input: SyncInput, cfg: IptablesConfig, existing: ReadonlySet<string>): IptablesRendering {
  const mark = `0x${(1 << cfg.masqueradeBit).toString(16)}`;
  const filter = new Writer('filter');
  const nat = new Writer('nat');
  for (const c of FILTER_TOP_CHAINS) filter.declare(c);
  for (const c of NAT_TOP_CHAINS) nat.declare(c);

  filter.rule(KUBE_FORWARD, '-m conntrack --ctstate INVALID -j DROP');
  filter.rule(KUBE_FORWARD, `-m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT`);
  filter.rule(KUBE_FORWARD, '-m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT');
  nat.rule(KUBE_POSTROUTING, `-m mark ! --mark ${mark}/${mark} -j RETURN`);
  nat.rule(KUBE_POSTROUTING, `-j MARK --xor-mark ${mark}`);
  nat.rule(KUBE_POSTROUTING, '-m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully');
  nat.rule(KUBE_MARK_MASQ, `-j MARK --or-mark ${mark}`);

  const active = new Set<string>();
  const svcRules = new Writer('nat'); // per-service chains, appended after the top-level ones
  const names = [...input.services.keys()].sort();
  let totalEndpoints = 0;
  for (const eps of input.endpoints.values()) totalEndpoints += eps.length;
  // Like upstream: past 1,000 endpoints, comments on per-endpoint rules cost more than they help.
  const large = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  for (const name of names) {
    const svc = input.services.get(name)!;
    const eps = categorizeEndpoints(input.endpoints.get(name) ?? [], svc, input.node);
    const write = input.full || input.changed.has(name);
    const usesCluster = eps.cluster.length > 0;
    const usesLocal = svc.internalPolicyLocal || svc.externalPolicyLocal;
    const external = svc.nodePort !== 0 || svc.externalIPs.length > 0;
    const match = `${proto(svc)} --dport ${svc.port}`;
    const svcC = svcChain(svc);
    const svlC = svlChain(svc);
    const extC = extChain(svc);
    if (usesCluster) active.add(svcC);
    if (usesLocal && eps.hasEndpoints) active.add(svlC);
    if (external && eps.hasEndpoints) active.add(extC);

    // Cluster IP.
    const internalTarget = svc.internalPolicyLocal ? (eps.local.length > 0 ? svlC : undefined) : usesCluster ? svcC : undefined;
    if (!eps.hasEndpoints) {
      filter.rule(KUBE_SERVICES, `-m comment --comment ${q(`${name} has no endpoints`)} ${proto(svc)} -d ${svc.clusterIP}/32 --dport ${svc.port} -j REJECT`);
    } else if (internalTarget === undefined) {
      filter.rule(KUBE_SERVICES, `-m comment --comment ${q(`${name} has no local endpoints`)} ${proto(svc)} -d ${svc.clusterIP}/32 --dport ${svc.port} -j DROP`);
    } else {
      nat.rule(KUBE_SERVICES, `-m comment --comment ${q(`${name} cluster IP`)} ${proto(svc)} -d ${svc.clusterIP}/32 --dport ${svc.port} -j ${internalTarget}`);
    }

    // External IPs and NodePorts enter through KUBE-EXT-*.
    for (const ip of svc.externalIPs) {
      if (eps.hasEndpoints) nat.rule(KUBE_SERVICES, `-m comment --comment ${q(`${name} external IP`)} ${proto(svc)} -d ${ip}/32 --dport ${svc.port} -j ${extC}`);
      else filter.rule(KUBE_EXTERNAL_SERVICES, `-m comment --comment ${q(`${name} has no endpoints`)} ${proto(svc)} -d ${ip}/32 --dport ${svc.port} -j REJECT`);
    }
    if (svc.nodePort !== 0) {
      if (eps.hasEndpoints) nat.rule(KUBE_NODEPORTS, `-m comment --comment ${q(name)} ${proto(svc)} --dport ${svc.nodePort} -j ${extC}`);
      else filter.rule(KUBE_EXTERNAL_SERVICES, `-m comment --comment ${q(`${name} has no endpoints`)} -m addrtype --dst-type LOCAL ${proto(svc)} --dport ${svc.nodePort} -j REJECT`);
    }
    const seps = new Set<Endpoint>([...eps.cluster, ...eps.local]);
    for (const ep of seps) active.add(sepChain(svc, ep));
    if (!write) continue;

    if (usesCluster) {
      svcRules.declare(svcC);
      if (cfg.masqueradeAll) svcRules.rule(svcC, `-m comment --comment ${q(`${name} cluster IP`)} ${match} -d ${svc.clusterIP}/32 -j ${KUBE_MARK_MASQ}`);
      else if (cfg.clusterCIDR !== '') svcRules.rule(svcC, `-m comment --comment ${q(`${name} cluster IP`)} ${match} -d ${svc.clusterIP}/32 ! -s ${cfg.clusterCIDR} -j ${KUBE_MARK_MASQ}`);
      balance(svcRules, svcC, svc, eps.cluster, large);
    }
    if (usesLocal && eps.hasEndpoints) {
      svcRules.declare(svlC);
      balance(svcRules, svlC, svc, eps.local, large);
    }
    if (external && eps.hasEndpoints) {
      svcRules.declare(extC);
      if (!svc.externalPolicyLocal) {
        svcRules.rule(extC, `-m comment --comment ${q(`masquerade traffic for ${name} external destinations`)} -j ${KUBE_MARK_MASQ}`);
        svcRules.rule(extC, `-j ${svcC}`);
      } else {
        // Local policy keeps the client address, except for traffic from the node itself, which goes cluster-wide.
        if (cfg.clusterCIDR !== '') svcRules.rule(extC, `-m comment --comment ${q(`pod traffic for ${name} external destinations`)} -s ${cfg.clusterCIDR} -j ${usesCluster ? svcC : svlC}`);
        svcRules.rule(extC, `-m comment --comment ${q(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`);
        if (usesCluster) svcRules.rule(extC, `-m comment --comment ${q(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${svcC}`);
        svcRules.rule(extC, `-j ${svlC}`);
      }
    }
    const comment = large ? '' : `-m comment --comment ${q(name)} `;
    const p = svc.protocol.toLowerCase();
    for (const ep of seps) {
      const sep = sepChain(svc, ep);
      svcRules.declare(sep);
      const affinity = svc.stickySeconds > 0 ? ` -m recent --name ${sep} --set` : '';
      svcRules.lines(sep, [
        `-A ${sep} ${comment}-s ${ep.ip}/32 -j ${KUBE_MARK_MASQ}`,
        `-A ${sep} ${comment}-m ${p} -p ${p}${affinity} -j DNAT --to-destination ${ep.ip}:${ep.port}`,
      ]);
    }
  }
  // Must stay last: NodePorts are matched only after every cluster IP.
  nat.rule(KUBE_SERVICES, `-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j ${KUBE_NODEPORTS}`);

  const deleted: string[] = [];
  for (const c of existing) if (!active.has(c)) deleted.push(c);
  deleted.sort();
  const natText = [
    '*nat',
    ...nat.chains,
    ...svcRules.chains,
    ...deleted.map((c) => `:${c} - [0:0]`),
    ...nat.rules,
    ...svcRules.rules,
    ...deleted.map((c) => `-X ${c}`),
    'COMMIT',
    '',
  ].join('\n');
  const written = new Map<string, number>();
  for (const [c, n] of filter.counts) written.set(`filter/${c}`, n);
  for (const [c, n] of nat.counts) written.set(`nat/${c}`, n);
  for (const [c, n] of svcRules.counts) written.set(`nat/${c}`, n);
  return { restore: filter.text() + natText, written, active, deleted, largeClusterMode: large };
}

/** ClientIP affinity checks, then `statistic` random balancing over the endpoints, as upstream writes them. */
function balance(w: Writer, chain: string, svc: ServicePortInfo, eps: readonly Endpoint[], large: boolean): void {
  const lines: string[] = [];
  const head = `-A ${chain} `;
  const comment = (ep: Endpoint): string => (large ? '' : `-m comment --comment ${q(`${svc.name} -> ${ep.ip}:${ep.port}`)} `);
  if (svc.stickySeconds > 0) {
    for (const ep of eps) {
      const sep = sepChain(svc, ep);
      lines.push(`${head}${comment(ep)}-m recent --name ${sep} --rcheck --seconds ${svc.stickySeconds} --reap -j ${sep}`);
    }
  }
  const n = eps.length;
  for (let i = 0; i < n; i++) {
    const ep = eps[i]!;
    lines.push(i < n - 1 ? `${head}${comment(ep)}-m statistic --mode random --probability ${probability(n - i)} -j ${sepChain(svc, ep)}` : `${head}${comment(ep)}-j ${sepChain(svc, ep)}`);
  }
  w.lines(chain, lines);
}
