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
import { BufferPool } from '../buffer_pool.js';
import { RuleBuffer, type Piece } from '../rule_buffer.js';
import type { Endpoint, NodeInfo, ServicePortInfo } from '../types.js';
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

/** One rendering. Its bytes stay valid until it is released to its cache (`IptablesRenderCache.release`). */
export interface IptablesRendering {
  /** The whole iptables-restore input (filter then nat), as bytes (joined from `parts` on first read). */
  readonly restore: Buffer;
  /** The same input in order, not joined: a full rendering's is tens of MB at 10k services. */
  readonly parts: readonly Buffer[];
  /** Its length in bytes. */
  readonly bytes: number;
  /** Rules in the top-level chains (always rewritten), by table. */
  readonly topRules: { nat: number; filter: number };
  /** Per-service chains and their rule count, for each service port this rendering rewrote. */
  readonly written: Map<string, { chains: string[]; rules: number }>;
  /** Upstream's large-cluster mode (over 1,000 endpoints): per-endpoint comments are left out. */
  readonly largeClusterMode: boolean;
  /** Stale per-service chains this rendering deletes. */
  readonly deleted: string[];
}

/** What one service port wrote, and what from: reused by later renderings while the inputs are the same objects. */
interface PortWritten {
  readonly endpoints: readonly Endpoint[] | undefined;
  readonly node: NodeInfo;
  readonly cfg: IptablesConfig;
  readonly large: boolean;
  /**
   * The full rendering its pieces live in (or are moved into when the rendering is settled): the cache's `epoch`
   * once that rendering is done. An entry of an older one belongs to a port the last full rendering did not
   * have, and its pieces may point into buffers since written over: it is computed again.
   */
  epoch: number;
  /** Its lines in the top-level chains (filter and nat), written on every rendering. */
  top: { filter: Piece; nat: Piece } | undefined;
  /** Its own chains: declarations, rules, names. */
  body: { decl: Piece; rules: Piece; owned: string[] } | undefined;
}

/**
 * A proxier's cache of each service port's rendered lines, keyed by the port's ServicePortInfo. The change
 * trackers replace a port's info or endpoint list when it changes, never edit them in place, so the same objects
 * mean the same lines.
 */
export class IptablesRenderCache {
  private readonly ports = new WeakMap<ServicePortInfo, PortWritten>();
  /** Bytes each writer held at the last rendering. */
  readonly sizes = new Map<string, { chains: number; rules: number }>();
  /** Full renderings done: the cached pieces point into the last one's buffers. */
  epoch = 0;
  /** Buffers of renderings nothing reads any more, written into by later ones. */
  readonly pool = new BufferPool();
  /** Each rendering's buffers, until they go to the pool. */
  private readonly buffers = new WeakMap<IptablesRendering, Buffer[]>();
  /** The last full rendering, and whether its owner released it (its buffers are kept while pieces point into them). */
  private last: { r: IptablesRendering; released: boolean } | undefined;

  get(svc: ServicePortInfo): PortWritten | undefined {
    return this.ports.get(svc);
  }
  set(svc: ServicePortInfo, w: PortWritten): void {
    this.ports.set(svc, w);
  }

  /** Records a finished rendering and the buffers it wrote into. */
  rendered(r: IptablesRendering, buffers: Buffer[], full: boolean): void {
    this.buffers.set(r, buffers);
    if (!full) return;
    // Every cached piece now points into this rendering's buffers, so the previous full one's are free once released.
    const prev = this.last;
    this.last = { r, released: false };
    this.epoch++;
    if (prev?.released === true) this.recycle(prev.r);
  }

  /**
   * The owner is done with `r` (the tool has read its bytes): its buffers are written over by a later rendering,
   * at once for a partial one, after the next full one for a full one (cached pieces point into those).
   */
  release(r: IptablesRendering): void {
    if (this.last?.r === r) this.last.released = true;
    else this.recycle(r);
  }

  private recycle(r: IptablesRendering): void {
    const b = this.buffers.get(r);
    if (b === undefined) return;
    this.buffers.delete(r);
    this.pool.give(b);
  }
}

// Upstream caches these strings: 1/n with ten decimals.
const probabilities: string[] = [];
function probability(n: number): string {
  return (probabilities[n] ??= (1 / n).toFixed(10));
}

class Writer {
  readonly chains: RuleBuffer;
  readonly rules: RuleBuffer;
  /** Sizes hint at the last rendering's (or an estimate), so a buffer is not grown (and copied) many times. */
  constructor(hint: { chains: number; rules: number } | undefined, pool: BufferPool) {
    this.chains = new RuleBuffer(Math.max(64 * 1024, hint?.chains ?? 0), pool);
    this.rules = new RuleBuffer(Math.max(1 << 20, hint?.rules ?? 0), pool);
  }
  declare(chain: string): void {
    this.chains.line(`:${chain} - [0:0]`);
  }
  rule(chain: string, rest: string): void {
    this.rules.line(`-A ${chain} ${rest}`);
  }
}

const q = (s: string): string => `"${s}"`;
const proto = (svc: ServicePortInfo): string => {
  const p = svc.protocol.toLowerCase();
  return `-m ${p} -p ${p}`;
};

/**
 * Renders the rules for `input`. `previous` holds each service port's chains as last written; `orphans` are
 * per-service chains found in the kernel that no known port owns (from an earlier run), deleted on a full sync.
 */
export function renderIptables(
  input: SyncInput,
  cfg: IptablesConfig,
  previous: ReadonlyMap<string, readonly string[]> = new Map(),
  orphans: ReadonlySet<string> = new Set(),
  cache: IptablesRenderCache = new IptablesRenderCache(),
): IptablesRendering {
  const mark = `0x${(1 << cfg.masqueradeBit).toString(16)}`;
  // Size hints come from the last rendering of the same kind: a partial one is far smaller than a full one.
  const kind = input.full ? 'full' : 'partial';
  let totalEndpoints = 0;
  for (const eps of input.endpoints.values()) totalEndpoints += eps.length;
  // A first full rendering has no sizes to go by: about 110 bytes a port in each top-level table, and 40 of
  // declaration and 330 of rules an endpoint in the per-service chains (at 10k × 10: 1.1, 4 and 33 MB).
  const estimate = (k: string, chains: number, rules: number): { chains: number; rules: number } | undefined =>
    cache.sizes.get(`${kind} ${k}`) ?? (input.full ? { chains, rules } : undefined);
  const services = input.services.size;
  const filter = new Writer(estimate('filter', 0, 0), cache.pool);
  const nat = new Writer(estimate('nat', 0, 110 * services), cache.pool);
  for (const c of FILTER_TOP_CHAINS) filter.declare(c);
  for (const c of NAT_TOP_CHAINS) nat.declare(c);

  filter.rule(KUBE_FORWARD, '-m conntrack --ctstate INVALID -j DROP');
  filter.rule(
    KUBE_FORWARD,
    `-m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT`,
  );
  filter.rule(
    KUBE_FORWARD,
    '-m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  );
  nat.rule(KUBE_POSTROUTING, `-m mark ! --mark ${mark}/${mark} -j RETURN`);
  nat.rule(KUBE_POSTROUTING, `-j MARK --xor-mark ${mark}`);
  nat.rule(
    KUBE_POSTROUTING,
    '-m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
  );
  nat.rule(KUBE_MARK_MASQ, `-j MARK --or-mark ${mark}`);

  const written = new Map<string, { chains: string[]; rules: number }>();
  const deleted: string[] = [];
  const svcRules = new Writer(
    estimate('svc', 40 * (totalEndpoints + services), 330 * totalEndpoints + 200 * services),
    cache.pool,
  ); // per-service chains, appended after the top-level ones
  // A full rendering's pieces end up pointing into its restore bytes (no copy each); a partial one copies the few it writes.
  const full = new FullPieces();
  const keep = (w: RuleBuffer, start: number, lines: number): Piece =>
    input.full ? full.keep(w, w.piece(start, lines)) : w.since(start, lines);
  const reuse = (w: RuleBuffer, p: Piece): void => {
    const start = w.length;
    w.append(p);
    if (input.full) full.move(p, w, start, w.length);
  };
  const names = [...input.services.keys()].sort();
  // Like upstream: past 1,000 endpoints, comments on per-endpoint rules cost more than they help.
  const large = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  for (const name of names) {
    const svc = input.services.get(name)!;
    const epList = input.endpoints.get(name);
    const write = input.full || input.changed.has(name);
    // What this port wrote last time, reused while its service, endpoints, node, config and comment mode are the same.
    let c = cache.get(svc);
    if (
      c === undefined ||
      c.epoch !== cache.epoch ||
      c.endpoints !== epList ||
      c.node !== input.node ||
      c.cfg !== cfg ||
      c.large !== large
    ) {
      c = { endpoints: epList, node: input.node, cfg, large, epoch: cache.epoch, top: undefined, body: undefined };
      cache.set(svc, c);
    }
    // A full rendering moves (or cuts) every piece of every port into its own buffers.
    if (input.full) c.epoch = cache.epoch + 1;
    if (c.top !== undefined && (!write || c.body !== undefined)) {
      reuse(filter.rules, c.top.filter);
      reuse(nat.rules, c.top.nat);
      if (write) {
        reuse(svcRules.chains, c.body!.decl);
        reuse(svcRules.rules, c.body!.rules);
      }
    } else {
      const f0 = filter.rules.length;
      const fl0 = filter.rules.lines;
      const n0 = nat.rules.length;
      const nl0 = nat.rules.lines;
      const eps = categorizeEndpoints(epList ?? [], svc, input.node);
      const usesCluster = eps.cluster.length > 0;
      const usesLocal = svc.internalPolicyLocal || svc.externalPolicyLocal;
      const external = svc.nodePort !== 0 || svc.externalIPs.length > 0;
      const match = `${proto(svc)} --dport ${svc.port}`;
      const svcC = svcChain(svc);
      const svlC = svlChain(svc);
      const extC = extChain(svc);

      // Cluster IP.
      const internalTarget = svc.internalPolicyLocal
        ? eps.local.length > 0
          ? svlC
          : undefined
        : usesCluster
          ? svcC
          : undefined;
      if (!eps.hasEndpoints) {
        filter.rule(
          KUBE_SERVICES,
          `-m comment --comment ${q(`${name} has no endpoints`)} ${proto(svc)} -d ${svc.clusterIP}/32 --dport ${svc.port} -j REJECT`,
        );
      } else if (internalTarget === undefined) {
        filter.rule(
          KUBE_SERVICES,
          `-m comment --comment ${q(`${name} has no local endpoints`)} ${proto(svc)} -d ${svc.clusterIP}/32 --dport ${svc.port} -j DROP`,
        );
      } else {
        nat.rule(
          KUBE_SERVICES,
          `-m comment --comment ${q(`${name} cluster IP`)} ${proto(svc)} -d ${svc.clusterIP}/32 --dport ${svc.port} -j ${internalTarget}`,
        );
      }

      // External IPs and NodePorts enter through KUBE-EXT-*.
      for (const ip of svc.externalIPs) {
        if (eps.hasEndpoints)
          nat.rule(
            KUBE_SERVICES,
            `-m comment --comment ${q(`${name} external IP`)} ${proto(svc)} -d ${ip}/32 --dport ${svc.port} -j ${extC}`,
          );
        else
          filter.rule(
            KUBE_EXTERNAL_SERVICES,
            `-m comment --comment ${q(`${name} has no endpoints`)} ${proto(svc)} -d ${ip}/32 --dport ${svc.port} -j REJECT`,
          );
      }
      if (svc.nodePort !== 0) {
        if (eps.hasEndpoints)
          nat.rule(KUBE_NODEPORTS, `-m comment --comment ${q(name)} ${proto(svc)} --dport ${svc.nodePort} -j ${extC}`);
        else
          filter.rule(
            KUBE_EXTERNAL_SERVICES,
            `-m comment --comment ${q(`${name} has no endpoints`)} -m addrtype --dst-type LOCAL ${proto(svc)} --dport ${svc.nodePort} -j REJECT`,
          );
      }
      c.top = { filter: keep(filter.rules, f0, fl0), nat: keep(nat.rules, n0, nl0) };
      if (write) {
        const d0 = svcRules.chains.length;
        const dl0 = svcRules.chains.lines;
        const r0 = svcRules.rules.length;
        const seps = eps.local.length === 0 ? eps.cluster : new Set<Endpoint>([...eps.cluster, ...eps.local]);
        const owned: string[] = [];
        const rulesBefore = svcRules.rules.lines;

        if (usesCluster) {
          owned.push(svcC);
          svcRules.declare(svcC);
          if (cfg.masqueradeAll)
            svcRules.rule(
              svcC,
              `-m comment --comment ${q(`${name} cluster IP`)} ${match} -d ${svc.clusterIP}/32 -j ${KUBE_MARK_MASQ}`,
            );
          else if (cfg.clusterCIDR !== '')
            svcRules.rule(
              svcC,
              `-m comment --comment ${q(`${name} cluster IP`)} ${match} -d ${svc.clusterIP}/32 ! -s ${cfg.clusterCIDR} -j ${KUBE_MARK_MASQ}`,
            );
          balance(svcRules, svcC, svc, eps.cluster, large);
        }
        if (usesLocal && eps.hasEndpoints) {
          owned.push(svlC);
          svcRules.declare(svlC);
          balance(svcRules, svlC, svc, eps.local, large);
        }
        if (external && eps.hasEndpoints) {
          owned.push(extC);
          svcRules.declare(extC);
          if (!svc.externalPolicyLocal) {
            svcRules.rule(
              extC,
              `-m comment --comment ${q(`masquerade traffic for ${name} external destinations`)} -j ${KUBE_MARK_MASQ}`,
            );
            svcRules.rule(extC, `-j ${svcC}`);
          } else {
            // Local policy keeps the client address, except for traffic from the node itself, which goes cluster-wide.
            if (cfg.clusterCIDR !== '')
              svcRules.rule(
                extC,
                `-m comment --comment ${q(`pod traffic for ${name} external destinations`)} -s ${cfg.clusterCIDR} -j ${usesCluster ? svcC : svlC}`,
              );
            svcRules.rule(
              extC,
              `-m comment --comment ${q(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`,
            );
            if (usesCluster)
              svcRules.rule(
                extC,
                `-m comment --comment ${q(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${svcC}`,
              );
            svcRules.rule(extC, `-j ${svlC}`);
          }
        }
        const comment = large ? '' : `-m comment --comment ${q(name)} `;
        const p = svc.protocol.toLowerCase();
        for (const ep of seps) {
          const sep = sepChain(svc, ep);
          owned.push(sep);
          svcRules.declare(sep);
          const affinity = svc.stickySeconds > 0 ? ` -m recent --name ${sep} --set` : '';
          svcRules.rules.line(`-A ${sep} ${comment}-s ${ep.ip}/32 -j ${KUBE_MARK_MASQ}`);
          svcRules.rules.line(
            `-A ${sep} ${comment}-m ${p} -p ${p}${affinity} -j DNAT --to-destination ${ep.ip}:${ep.port}`,
          );
        }
        c.body = { decl: keep(svcRules.chains, d0, dl0), rules: keep(svcRules.rules, r0, rulesBefore), owned };
      }
    }
    if (!write) continue;
    const owned = c.body!.owned;
    written.set(name, { chains: owned, rules: c.body!.rules.lines });
    const before = previous.get(name);
    if (before !== undefined && !input.full) for (const ch of before) if (!owned.includes(ch)) deleted.push(ch);
  }
  // Must stay last: NodePorts are matched only after every cluster IP.
  nat.rule(
    KUBE_SERVICES,
    `-m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j ${KUBE_NODEPORTS}`,
  );

  if (input.full) {
    // Everything is rewritten: any chain known before (or found in the kernel) that no port owns now goes.
    // A port that wrote the very same chain list as before (a cached one) loses none; the set of every owned
    // chain is built only when some port's list differs.
    let now: Set<string> | undefined;
    const owned = (): Set<string> => {
      if (now !== undefined) return now;
      now = new Set<string>();
      for (const w of written.values()) for (const c of w.chains) now.add(c);
      return now;
    };
    for (const [name, list] of previous) {
      if (written.get(name)?.chains === list) continue;
      for (const c of list) if (!owned().has(c)) deleted.push(c);
    }
    for (const c of orphans) if (!owned().has(c)) deleted.push(c);
  } else {
    // Ports that went away are in `changed` but no longer in the services map.
    for (const name of input.changed) if (!input.services.has(name)) deleted.push(...(previous.get(name) ?? []));
  }
  for (const [k, w] of [
    ['filter', filter],
    ['nat', nat],
    ['svc', svcRules],
  ] as const)
    cache.sizes.set(`${kind} ${k}`, { chains: w.chains.length, rules: w.rules.length });
  const stale = [...new Set(deleted)].sort();
  const tail = new RuleBuffer();
  for (const c of stale) tail.line(`-X ${c}`);
  tail.line('COMMIT');
  const staleDecl = new RuleBuffer();
  for (const c of stale) staleDecl.line(`:${c} - [0:0]`);
  const sections: [RuleBuffer | Buffer, Buffer][] = [
    [Buffer.from('*filter\n'), Buffer.from('*filter\n')],
    [filter.chains, filter.chains.bytes()],
    [filter.rules, filter.rules.bytes()],
    [Buffer.from('COMMIT\n*nat\n'), Buffer.from('COMMIT\n*nat\n')],
    [nat.chains, nat.chains.bytes()],
    [svcRules.chains, svcRules.chains.bytes()],
    [staleDecl, staleDecl.bytes()],
    [nat.rules, nat.rules.bytes()],
    [svcRules.rules, svcRules.rules.bytes()],
    [tail, tail.bytes()],
  ];
  const parts = sections.map(([, b]) => b);
  full.settle(new Map(sections));
  let restore: Buffer | undefined;
  const rendering: IptablesRendering = {
    get restore(): Buffer {
      return (restore ??= Buffer.concat(parts));
    },
    parts,
    bytes: parts.reduce((n, b) => n + b.length, 0),
    topRules: { nat: nat.rules.lines, filter: filter.rules.lines },
    written,
    deleted: stale,
    largeClusterMode: large,
  };
  cache.rendered(
    rendering,
    [filter, nat, svcRules].flatMap((w) => [w.chains.backing(), w.rules.backing()]),
    input.full,
  );
  return rendering;
}

/**
 * Each service port's chains once `r` (rendered for `input`) is applied, given the ones before it: what the next
 * rendering takes as `previous`. Ports a partial rendering was asked about and did not write are gone.
 */
export function chainsAfter(
  previous: ReadonlyMap<string, readonly string[]>,
  input: SyncInput,
  r: IptablesRendering,
): Map<string, readonly string[]> {
  const next = input.full ? new Map<string, readonly string[]>() : new Map(previous);
  if (!input.full) for (const name of input.changed) next.delete(name);
  for (const [name, w] of r.written) next.set(name, w.chains);
  return next;
}

/**
 * The pieces a full rendering keeps, cut in place from its buffers (no copy each). Those may still grow into new
 * ones, so once the rendering is done every piece is pointed into its buffer's final bytes: those then hold the
 * cache (about the size of the copies they replace) until the next full rendering points the pieces into its own.
 */
class FullPieces {
  private readonly pieces: Piece[] = [];
  private readonly from: RuleBuffer[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  /** A new piece cut from `w` (valid as it is; settling only lets `w`'s earlier buffers go). */
  keep(w: RuleBuffer, p: Piece): Piece {
    this.move(p, w, p.start, p.end);
    return p;
  }

  /** A piece appended again at start..end of `w`: it moves there once the rendering is settled, and stays valid before. */
  move(p: Piece, w: RuleBuffer, start: number, end: number): void {
    this.pieces.push(p);
    this.from.push(w);
    this.starts.push(start);
    this.ends.push(end);
  }

  /** Points every piece into the final bytes of the buffer it was cut from. */
  settle(final: ReadonlyMap<unknown, Buffer>): void {
    for (let i = 0; i < this.pieces.length; i++) {
      const p = this.pieces[i]!;
      p.buf = final.get(this.from[i]!)!;
      p.start = this.starts[i]!;
      p.end = this.ends[i]!;
    }
  }
}

/** ClientIP affinity checks, then `statistic` random balancing over the endpoints, as upstream writes them. */
function balance(w: Writer, chain: string, svc: ServicePortInfo, eps: readonly Endpoint[], large: boolean): void {
  const head = `-A ${chain} `;
  const comment = (ep: Endpoint): string =>
    large ? '' : `-m comment --comment ${q(`${svc.name} -> ${ep.ip}:${ep.port}`)} `;
  if (svc.stickySeconds > 0) {
    for (const ep of eps) {
      const sep = sepChain(svc, ep);
      w.rules.line(
        `${head}${comment(ep)}-m recent --name ${sep} --rcheck --seconds ${svc.stickySeconds} --reap -j ${sep}`,
      );
    }
  }
  const n = eps.length;
  for (let i = 0; i < n; i++) {
    const ep = eps[i]!;
    w.rules.line(
      i < n - 1
        ? `${head}${comment(ep)}-m statistic --mode random --probability ${probability(n - i)} -j ${sepChain(svc, ep)}`
        : `${head}${comment(ep)}-j ${sepChain(svc, ep)}`,
    );
  }
}
