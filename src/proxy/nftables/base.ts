/**
 * The fixed part of the nftables ruleset, as upstream lays it out: base
 * chains hooked at upstream's priorities, the verdict maps and the helper
 * chains (masquerading, reject). Filter checks run before DNAT (so traffic
 * to a service without endpoints is rejected) except cluster-ips-check,
 * which runs after it and so only sees traffic no service port took.
 */

/** Renderer knobs with upstream's flag names. */
export interface NftConfig {
  /** --iptables-masquerade-bit, also used by the nftables mode (14 → 0x4000). */
  masqueradeBit: number;
  /** --masquerade-all. */
  masqueradeAll: boolean;
  /** --cluster-cidr, "" for none. */
  clusterCIDR: string;
}

/** Upstream's defaults. */
export const DEFAULT_NFT_CONFIG: NftConfig = { masqueradeBit: 14, masqueradeAll: false, clusterCIDR: '' };

/** Base and helper chains: name → hook spec ("" for a regular chain). */
export const BASE_CHAINS: readonly (readonly [string, string])[] = [
  ['filter-input', 'type filter hook input priority -110'],
  ['filter-forward', 'type filter hook forward priority -110'],
  ['filter-output', 'type filter hook output priority -110'],
  ['filter-output-post-dnat', 'type filter hook output priority -90'],
  ['nat-prerouting', 'type nat hook prerouting priority dstnat'],
  ['nat-output', 'type nat hook output priority -100'],
  ['nat-postrouting', 'type nat hook postrouting priority srcnat'],
  ['services', ''],
  ['service-endpoints-check', ''],
  ['nodeport-endpoints-check', ''],
  ['cluster-ips-check', ''],
  ['mark-for-masquerade', ''],
  ['masquerading', ''],
  ['reject-chain', ''],
];

/** Sets and maps: name, kind, type spec. */
export const BASE_MAPS: readonly (readonly [string, 'set' | 'map', string])[] = [
  ['cluster-ips', 'set', 'type ipv4_addr ; comment "Active ClusterIPs"'],
  [
    'hairpin-endpoints',
    'set',
    'type ipv4_addr . ipv4_addr ; comment "endpoint . endpoint, for traffic an endpoint sends to itself through a service"',
  ],
  [
    'service-ips',
    'map',
    'type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic"',
  ],
  ['service-nodeports', 'map', 'type inet_proto . inet_service : verdict ; comment "NodePort traffic"'],
  [
    'no-endpoint-services',
    'map',
    'type ipv4_addr . inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to services with no endpoints"',
  ],
  [
    'no-endpoint-nodeports',
    'map',
    'type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints"',
  ],
];

/**
 * Endpoint slot maps (`endpoint-dnat-tcp-0` …): a balancing chain picks one of
 * its N slots with numgen. The kernel pays O(elements) whenever a rule binds a
 * map and O(bindings) whenever an element joins a bound one, so one map for
 * all services made a 10k-service load O(n²); sharded by chain, each shard
 * holds 1/256 of the rules and slots. The maps are per protocol because nft
 * reads a map's `typeof … th dport` back from the kernel as a protocol of its
 * own, which then conflicts with the rule's `meta l4proto tcp`.
 */
export const ENDPOINT_SHARDS = 256;
/** Protocols with their own slot maps. */
export const SLOT_PROTOCOLS = ['tcp', 'udp', 'sctp'] as const;
/** The name prefix of the endpoint slot maps. */
export const ENDPOINT_DNAT = 'endpoint-dnat-';
const slotSpec = (proto: string): string =>
  `typeof numgen random mod 1 : ip daddr . ${proto} dport ; comment "endpoint slots: a service chain picks one of its N slots with numgen"`;
const MAP_SPEC: ReadonlyMap<string, readonly ['set' | 'map', string]> = new Map(
  BASE_MAPS.map(([name, kind, spec]) => [name, [kind, spec]]),
);

/** The declaration of a shared set or map, as `add` statements repeat it. */
export function mapSpec(name: string): readonly ['set' | 'map', string] {
  return name.startsWith(ENDPOINT_DNAT)
    ? ['map', slotSpec(name.slice(ENDPOINT_DNAT.length, name.lastIndexOf('-')))]
    : MAP_SPEC.get(name)!;
}

/** The slot map of a balancing chain (FNV-1a of its name, so a chain keeps its shard across syncs). */
export function endpointMap(chain: string, proto: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < chain.length; i++) h = Math.imul(h ^ chain.charCodeAt(i), 0x01000193);
  return `${ENDPOINT_DNAT}${proto}-${(h >>> 0) % ENDPOINT_SHARDS}`;
}

const LOCAL_DST = 'fib daddr type local ip daddr != 127.0.0.0/8';

/** Rules of the base and helper chains. */
export function baseRules(cfg: NftConfig): (readonly [string, string[]])[] {
  const mark = `0x${(1 << cfg.masqueradeBit).toString(16)}`;
  return [
    ['filter-input', ['ct state new jump nodeport-endpoints-check', 'ct state new jump service-endpoints-check']],
    ['filter-forward', ['ct state new jump service-endpoints-check', 'ct state new jump cluster-ips-check']],
    ['filter-output', ['ct state new jump service-endpoints-check']],
    ['filter-output-post-dnat', ['ct state new jump cluster-ips-check']],
    ['nat-prerouting', ['jump services']],
    ['nat-output', ['jump services']],
    ['nat-postrouting', ['ct status dnat ip saddr . ip daddr @hairpin-endpoints masquerade', 'jump masquerading']],
    [
      'services',
      [
        'ip daddr . meta l4proto . th dport vmap @service-ips',
        `${LOCAL_DST} meta l4proto . th dport vmap @service-nodeports`,
      ],
    ],
    ['service-endpoints-check', ['ip daddr . meta l4proto . th dport vmap @no-endpoint-services']],
    ['nodeport-endpoints-check', [`${LOCAL_DST} meta l4proto . th dport vmap @no-endpoint-nodeports`]],
    ['cluster-ips-check', ['ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"']],
    ['mark-for-masquerade', [`mark set mark or ${mark}`]],
    ['masquerading', [`mark and ${mark} == 0 return`, `mark set mark xor ${mark}`, 'masquerade fully-random']],
    ['reject-chain', ['reject comment "helper for @no-endpoint-services / @no-endpoint-nodeports"']],
  ];
}
