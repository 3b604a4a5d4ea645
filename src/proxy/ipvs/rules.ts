/**
 * Renders the IPVS mode's changes, like upstream's IPVS proxier does through
 * netlink, as text for the tools: `ipvsadm -R` commands (virtual and real
 * servers added, edited, deleted), `ipset restore` lines (KUBE-CLUSTER-IP,
 * KUBE-LOOP-BACK, KUBE-NODE-PORT-TCP/UDP), `ip -batch` lines for the
 * kube-ipvs0 addresses, and the fixed iptables glue that matches those sets.
 * A rendering diffs the desired servers of the changed ports against the
 * state the kernel holds, so a sync is O(changes).
 */
import type { SyncInput } from '../proxier.js';
import { RuleBuffer } from '../rule_buffer.js';
import type { Endpoint, NodeInfo, ServicePortInfo } from '../types.js';
import {
  DUMMY_INTERFACE,
  portVirtualServers,
  vsKey,
  type IpvsScheduler,
  type RealServer,
  type VirtualServer,
} from './virtual_servers.js';

/** IPVS renderer knobs (upstream flag names). */
export interface IpvsConfig {
  /** --ipvs-scheduler. */
  scheduler: IpvsScheduler;
  masqueradeBit: number;
  masqueradeAll: boolean;
  clusterCIDR: string;
}

/** Upstream's defaults (round robin, mark bit 14, no masquerade-all, no cluster CIDR). */
export const DEFAULT_IPVS_CONFIG: IpvsConfig = {
  scheduler: 'rr',
  masqueradeBit: 14,
  masqueradeAll: false,
  clusterCIDR: '',
};

/** What the kernel holds: virtual servers, bound addresses (refcounted), ipset entries (refcounted), per port. */
export class IpvsState {
  servers = new Map<string, VirtualServer>();
  ports = new Map<string, { servers: string[]; addrs: string[]; sets: string[] }>();
  addrs = new Map<string, number>();
  setEntries = new Map<string, number>();
}

/** One rendering. */
export interface IpvsRendering {
  /** `ipvsadm -R` input (decoded from ipvsadmBytes on first read). */
  readonly ipvsadm: string;
  /** The same, as bytes: a first sync's is a line per real server. */
  readonly ipvsadmBytes: Buffer;
  readonly ipset: string;
  readonly addrs: string;
  readonly state: IpvsState;
}

const PROTO_FLAG: Record<VirtualServer['proto'], string> = { tcp: '-t', udp: '-u', sctp: '--sctp-service' };

/** The ipsets upstream's IPVS mode creates, with their types. */
export const IPSETS: readonly (readonly [string, string])[] = [
  ['KUBE-CLUSTER-IP', 'hash:ip,port'],
  ['KUBE-LOOP-BACK', 'hash:ip,port,ip'],
  ['KUBE-NODE-PORT-TCP', 'bitmap:port range 0-65535'],
  ['KUBE-NODE-PORT-UDP', 'bitmap:port range 0-65535'],
];

/** ipset entries one port needs ("SET entry"). */
function setEntries(
  servers: readonly VirtualServer[],
  clusterIP: string,
  port: number,
  proto: string,
  nodePort: number,
): string[] {
  const out = [`KUBE-CLUSTER-IP ${clusterIP},${proto}:${port}`];
  if (nodePort !== 0 && proto !== 'sctp') out.push(`KUBE-NODE-PORT-${proto.toUpperCase()} ${nodePort}`);
  // Hairpin: an endpoint reaching its own service is masqueraded, matched by dst ip,port and src ip.
  for (const r of servers[0]?.reals ?? []) out.push(`KUBE-LOOP-BACK ${r.addr},${proto}:${r.port},${r.addr}`);
  return out;
}

/** What a port needs in the kernel, as kept in IpvsState.ports. */
type PortEntry = { servers: string[]; addrs: string[]; sets: string[] };

interface DesiredPort {
  readonly endpoints: readonly Endpoint[] | undefined;
  readonly node: NodeInfo;
  readonly nodeIPs: readonly string[];
  readonly scheduler: IpvsScheduler;
  readonly servers: readonly VirtualServer[];
  readonly entry: PortEntry;
}

/**
 * A proxier's cache of each port's desired servers and ipset entries, keyed by its ServicePortInfo. The change
 * trackers replace a port's info or endpoint list when it changes, never edit them in place, so the same objects
 * mean the same servers.
 */
export class IpvsRenderCache {
  readonly ports = new WeakMap<ServicePortInfo, DesiredPort>();
}

function desiredPort(
  cache: IpvsRenderCache,
  svc: ServicePortInfo,
  endpoints: readonly Endpoint[] | undefined,
  node: NodeInfo,
  nodeIPs: readonly string[],
  scheduler: IpvsScheduler,
): DesiredPort {
  const known = cache.ports.get(svc);
  if (
    known !== undefined &&
    known.endpoints === endpoints &&
    known.node === node &&
    known.nodeIPs === nodeIPs &&
    known.scheduler === scheduler
  )
    return known;
  const p = portVirtualServers(svc, endpoints ?? [], node, nodeIPs, scheduler);
  const sets = setEntries(p.servers, svc.clusterIP, svc.port, svc.protocol.toLowerCase(), svc.nodePort);
  const d = {
    endpoints,
    node,
    nodeIPs,
    scheduler,
    servers: p.servers,
    entry: { servers: p.servers.map(vsKey), addrs: p.boundAddrs, sets },
  };
  cache.ports.set(svc, d);
  return d;
}

function sameReals(a: readonly RealServer[], b: readonly RealServer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.addr !== b[i]!.addr || a[i]!.port !== b[i]!.port) return false;
  return true;
}

function vsLine(op: '-A' | '-E', vs: VirtualServer): string {
  return `${op} ${PROTO_FLAG[vs.proto]} ${vs.addr}:${vs.port} -s ${vs.scheduler}${vs.persistSeconds > 0 ? ` -p ${vs.persistSeconds}` : ''}`;
}

/** Renders the changes; on a full rendering `state` must be what the kernel holds now (read back with ipvsadm -S). */
export function renderIpvs(
  input: SyncInput,
  cfg: IpvsConfig,
  nodeIPs: readonly string[],
  state: IpvsState,
  cache: IpvsRenderCache = new IpvsRenderCache(),
): IpvsRendering {
  const next = new IpvsState();
  next.servers = new Map(state.servers);
  next.ports = input.full ? new Map() : new Map(state.ports);
  next.addrs = input.full ? new Map() : new Map(state.addrs);
  next.setEntries = input.full ? new Map() : new Map(state.setEntries);
  const desired = new Map<string, VirtualServer>();
  const names = input.full ? [...input.services.keys()].sort() : [...input.changed].sort();
  const addrOps: string[] = [];
  const setOps: string[] = [];
  // Deltas are summed first, so an entry that a changed port keeps is neither deleted nor re-added.
  const addrDelta = new Map<string, number>();
  const setDelta = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string, d: number): void => void m.set(k, (m.get(k) ?? 0) + d);
  const touched = new Set<string>();
  for (const name of names) {
    const old = input.full ? undefined : state.ports.get(name);
    for (const k of old?.servers ?? []) touched.add(k);
    for (const a of old?.addrs ?? []) bump(addrDelta, a, -1);
    for (const e of old?.sets ?? []) bump(setDelta, e, -1);
    next.ports.delete(name);
    const svc = input.services.get(name);
    if (svc === undefined) continue;
    const p = desiredPort(cache, svc, input.endpoints.get(name), input.node, nodeIPs, cfg.scheduler);
    for (let i = 0; i < p.servers.length; i++) {
      desired.set(p.entry.servers[i]!, p.servers[i]!);
      touched.add(p.entry.servers[i]!);
    }
    for (const a of p.entry.addrs) bump(addrDelta, a, 1);
    for (const e of p.entry.sets) bump(setDelta, e, 1);
    next.ports.set(name, p.entry);
  }
  const apply = (
    counts: Map<string, number>,
    deltas: Map<string, number>,
    add: (k: string) => string,
    del: (k: string) => string,
    out: string[],
  ): void => {
    // The default sort compares strings by code unit, the same order as `<`, and faster than a comparator.
    for (const k of [...deltas.keys()].sort()) {
      const d = deltas.get(k)!;
      if (d === 0) continue;
      const before = counts.get(k) ?? 0;
      const after = before + d;
      if (after <= 0) counts.delete(k);
      else counts.set(k, after);
      if (before === 0 && after > 0) out.push(add(k));
      else if (before > 0 && after <= 0) out.push(del(k));
    }
  };
  apply(
    next.addrs,
    addrDelta,
    (a) => `address add ${a}/32 dev ${DUMMY_INTERFACE}`,
    (a) => `address del ${a}/32 dev ${DUMMY_INTERFACE}`,
    addrOps,
  );
  apply(
    next.setEntries,
    setDelta,
    (e) => `add ${e} -exist`,
    (e) => `del ${e} -exist`,
    setOps,
  );
  // On a full rendering every server the kernel holds is examined, so leftovers of earlier runs go too.
  if (input.full) for (const k of state.servers.keys()) touched.add(k);
  // Written as bytes, not kept as strings until the end: a first sync has a line per real server (100k at 10k
  // services), and strings held that long outlive young-generation collections and are copied by each.
  // A full one is sized from the desired servers (about 64 bytes a line), so it is not grown by copying into
  // fresh memory, whose first writes are the expensive part.
  let reals = 0;
  if (input.full) for (const vs of desired.values()) reals += vs.reals.length + 1;
  const cmds = new RuleBuffer(input.full ? Math.max(1 << 20, 64 * reals) : 4096);
  for (const k of [...touched].sort()) {
    const want = desired.get(k);
    const have = state.servers.get(k);
    if (want === undefined) {
      if (have !== undefined) cmds.line(`-D ${PROTO_FLAG[have.proto]} ${have.addr}:${have.port}`);
      next.servers.delete(k);
      continue;
    }
    next.servers.set(k, want);
    if (have === undefined) cmds.line(vsLine('-A', want));
    else if (have.scheduler !== want.scheduler || have.persistSeconds !== want.persistSeconds)
      cmds.line(vsLine('-E', want));
    // The common case, nothing changed (a resync): the same reals in the same order need no maps.
    if (have !== undefined && sameReals(have.reals, want.reals)) continue;
    const vsArg = `${PROTO_FLAG[want.proto]} ${want.addr}:${want.port}`;
    if (have === undefined || have.reals.length === 0) {
      // A new server (every server of the first sync): all its reals are added, no lookups needed.
      for (const r of want.reals) cmds.line(`-a ${vsArg} -r ${r.addr}:${r.port} -m -w ${r.weight}`);
      continue;
    }
    const haveReals = new Map(have.reals.map((r) => [`${r.addr}:${r.port}`, r]));
    const wantReals = new Set(want.reals.map((r) => `${r.addr}:${r.port}`));
    for (const [rk] of haveReals) if (!wantReals.has(rk)) cmds.line(`-d ${vsArg} -r ${rk}`);
    for (const r of want.reals)
      if (!haveReals.has(`${r.addr}:${r.port}`)) cmds.line(`-a ${vsArg} -r ${r.addr}:${r.port} -m -w ${r.weight}`);
  }
  const creates = input.full ? IPSETS.map(([n, t]) => `create ${n} ${t} -exist`) : [];
  const lines = (l: string[]): string => (l.length === 0 ? '' : `${l.join('\n')}\n`);
  const bytes = cmds.bytes();
  let text: string | undefined;
  return {
    get ipvsadm(): string {
      return (text ??= bytes.toString('latin1'));
    },
    ipvsadmBytes: bytes,
    ipset: lines([...creates, ...setOps]),
    addrs: lines(addrOps),
    state: next,
  };
}

/** The fixed nat glue of the IPVS mode (iptables-restore input, written on full syncs). */
export function ipvsIptablesGlue(cfg: IpvsConfig): string {
  const mark = `0x${(1 << cfg.masqueradeBit).toString(16)}`;
  const masq = cfg.masqueradeAll
    ? [
        '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ',
      ]
    : cfg.clusterCIDR !== ''
      ? [
          `-A KUBE-SERVICES ! -s ${cfg.clusterCIDR} -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ`,
        ]
      : [];
  return [
    '*nat',
    ':KUBE-SERVICES - [0:0]',
    ':KUBE-POSTROUTING - [0:0]',
    ':KUBE-NODE-PORT - [0:0]',
    ':KUBE-MARK-MASQ - [0:0]',
    ...masq,
    '-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT',
    '-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT',
    '-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-TCP dst -j KUBE-MARK-MASQ',
    '-A KUBE-NODE-PORT -p udp -m comment --comment "Kubernetes nodeport UDP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-UDP dst -j KUBE-MARK-MASQ',
    `-A KUBE-MARK-MASQ -j MARK --or-mark ${mark}`,
    '-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-LOOP-BACK dst,dst,src -j MASQUERADE',
    `-A KUBE-POSTROUTING -m mark ! --mark ${mark}/${mark} -j RETURN`,
    `-A KUBE-POSTROUTING -j MARK --xor-mark ${mark}`,
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    'COMMIT',
    '',
  ].join('\n');
}

/** Parses `ipvsadm -S -n` output into virtual servers (for the diff on a full sync). */
export function parseIpvsadmSave(text: string): Map<string, VirtualServer> {
  const out = new Map<string, VirtualServer>();
  const protoOf: Record<string, VirtualServer['proto']> = { '-t': 'tcp', '-u': 'udp', '--sctp-service': 'sctp' };
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    const proto = protoOf[f[1] ?? ''];
    if (proto === undefined) continue;
    const [addr, portS] = splitHostPort(f[2]!);
    const key = vsKey({ proto, addr, port: portS });
    if (f[0] === '-A') {
      const s = f.indexOf('-s');
      const p = f.indexOf('-p');
      out.set(key, {
        proto,
        addr,
        port: portS,
        scheduler: (s >= 0 ? f[s + 1] : 'wlc') as IpvsScheduler,
        persistSeconds: p >= 0 ? Number(f[p + 1]) : 0,
        reals: [],
      });
    } else if (f[0] === '-a') {
      const vs = out.get(key);
      const r = f.indexOf('-r');
      const w = f.indexOf('-w');
      if (vs === undefined || r < 0) continue;
      const [raddr, rport] = splitHostPort(f[r + 1]!);
      out.set(key, {
        ...vs,
        reals: [...vs.reals, { addr: raddr, port: rport, weight: w >= 0 ? Number(f[w + 1]) : 1 }],
      });
    }
  }
  return out;
}

function splitHostPort(s: string): [string, number] {
  const i = s.lastIndexOf(':');
  return [s.slice(0, i), Number(s.slice(i + 1))];
}
