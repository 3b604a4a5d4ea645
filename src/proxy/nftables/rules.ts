/**
 * Renders the nftables mode as `nft -f` transactions, following upstream's
 * nftables proxier (its README describes the ruleset): one table
 * `ip kube-proxy`; verdict maps keyed by `ip . proto . port` (service-ips,
 * no-endpoint-services) and `proto . port` (service-nodeports,
 * no-endpoint-nodeports); a chain per service port that picks an endpoint
 * slot with numgen (port_objects.ts). A full rendering replaces the table
 * atomically; a partial one rewrites only changed services' chains and adds
 * or deletes only their elements (upstream refills the maps on every sync;
 * here the maps are diffed, so a sync is O(changes)).
 *
 * A partial transaction is written so that nft 1.0.6 need not read the
 * kernel's chains first. That read (about 110 ms of CPU at 10k services)
 * happens for every `add rule`, `add element`, `delete element` or
 * `delete chain`, but not for `flush chain`, `add chain X { rules }` or
 * `add map M { spec ; elements = { … } ; }`. So chains are rewritten as
 * flush + chain body, elements are added through map bodies, and deletes that
 * do not change where traffic goes (chains and affinity sets no longer
 * referenced, endpoint slots no longer used, hairpin pairs) are deferred, as
 * upstream defers deleting stale chains: they are removed in the next
 * transaction that pays the read anyway, or when the proxier asks to purge.
 */
import type { SyncInput } from '../proxier.js';
import {
  BASE_CHAINS,
  BASE_MAPS,
  ENDPOINT_DNAT,
  ENDPOINT_SHARDS,
  SLOT_PROTOCOLS,
  baseRules,
  mapSpec,
  type NftConfig,
} from './base.js';
import { FAMILY, TABLE } from './names.js';
import type { Endpoint, NodeInfo, ServicePortInfo } from '../types.js';
import { BufferPool } from '../buffer_pool.js';
import { RuleBuffer } from '../rule_buffer.js';
import { portObjects, type Element, type PortObjects } from './port_objects.js';

/** Objects left in the kernel for a later transaction to delete; none of them is referenced. */
export interface Stale {
  /** Flushed chains. */
  readonly chains: Set<string>;
  readonly sets: Set<string>;
  /** Elements by "map|key". */
  readonly elements: Map<string, Element>;
}

const emptyStale = (): Stale => ({ chains: new Set(), sets: new Set(), elements: new Map() });

/** Maps and sets whose elements may be deleted late: nothing routes by a stale one. */
const lazyElements = (map: string): boolean => map === 'hairpin-endpoints' || map.startsWith(ENDPOINT_DNAT);
const SLOT_MAP_REF = new RegExp(`@(${ENDPOINT_DNAT}[a-z]+-\\d+)`, 'g');

/**
 * References to each set element, by set and key, since several ports share one (a cluster IP, a hairpin pair).
 * Keyed by the element's own key string, so no "set|key" string is built and kept per element.
 */
export class SetRefs {
  private readonly sets = new Map<string, Map<string, number>>();

  /** References to `key` in `set` (0 when none). */
  get(set: string, key: string): number {
    return this.sets.get(set)?.get(key) ?? 0;
  }

  /** Adds a reference to `key` in `set`; returns how many there are now. */
  add(set: string, key: string): number {
    let m = this.sets.get(set);
    if (m === undefined) this.sets.set(set, (m = new Map()));
    const n = (m.get(key) ?? 0) + 1;
    m.set(key, n);
    return n;
  }

  /** Sets the references; 0 or fewer forgets the element. */
  set(set: string, key: string, n: number): void {
    let m = this.sets.get(set);
    if (n <= 0) {
      m?.delete(key);
      return;
    }
    if (m === undefined) this.sets.set(set, (m = new Map()));
    m.set(key, n);
  }

  /** A copy to change without touching this one. */
  clone(): SetRefs {
    const c = new SetRefs();
    for (const [set, m] of this.sets) c.sets.set(set, new Map(m));
    return c;
  }
}

/** The objects the proxier believes are in the kernel; updated by `commitNftables`. */
export class NftState {
  ports = new Map<string, PortEntry>();
  /** References to each set element, since several ports share one. */
  setRefs = new SetRefs();
  rules = 0;
  elements = 0;
  /** The next free slot of endpoint-dnat; slots are not reused before a full sync rebuilds the table. */
  nextSlot = 0;
  stale: Stale = emptyStale();
  /** Buffers of full renderings nft has read, written into by later ones. */
  readonly pool = new BufferPool();
  /** Each full rendering's buffers, until released. */
  readonly buffers = new WeakMap<NftRendering, Buffer[]>();
}

/** The owner is done with `r` (nft has read it): later renderings may write into its buffers. */
export function releaseNftables(state: NftState, r: NftRendering): void {
  const b = state.buffers.get(r);
  if (b === undefined) return;
  state.buffers.delete(r);
  state.pool.give(b);
}

/** One rendering: the transaction and the state it leads to. */
export interface NftRendering {
  /** The transaction as `nft -f` text (decoded from `parts` on first read for a full rendering). */
  readonly text: string;
  /** The same transaction as bytes, in order (a full rendering's, written without joining them; valid until released). */
  readonly parts: readonly Buffer[];
  /** Its length in bytes. */
  readonly bytes: number;
  readonly ports: Map<string, PortEntry>;
  readonly setRefs: SetRefs;
  readonly rules: number;
  readonly elements: number;
  readonly nextSlot: number;
  readonly stale: Stale;
  /** Whether the transaction makes nft read every chain from the kernel first (full syncs, and deletes). */
  readonly readsChains: boolean;
}

/** Rendering options. */
export interface NftRenderOptions {
  /** Delete the stale objects in this transaction even if nothing else needs the chain read. */
  readonly purgeStale?: boolean;
}

const el = (e: Element): string => (e.value === undefined ? e.key : `${e.key} : ${e.value}`);
const sameRules = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((r, i) => r === b[i]);

/** Renders a transaction; `state` is what the kernel holds (ignored on a full rendering). */
export function renderNftables(
  input: SyncInput,
  cfg: NftConfig,
  state: NftState,
  opts: NftRenderOptions = {},
): NftRendering {
  const t = `${FAMILY} ${TABLE}`;
  const full = input.full;
  const head: string[] = [];
  const decl: string[] = [];
  const flush: string[] = [];
  const rules: string[] = [];
  const elemDel = new Map<string, string[]>();
  const elemAdd = new Map<string, string[]>();
  const tail: string[] = [];
  const ports = full ? new Map<string, PortEntry>() : new Map(state.ports);
  const setRefs = full ? new SetRefs() : state.setRefs.clone();
  const stale: Stale = full
    ? emptyStale()
    : { chains: new Set(state.stale.chains), sets: new Set(state.stale.sets), elements: new Map(state.stale.elements) };
  const ctx = { node: input.node, cfg, slots: { next: full ? 0 : state.nextSlot } };
  let ruleCount = full ? 0 : state.rules;
  let elementCount = full ? 0 : state.elements;
  const slotsDeclared = new Set<string>();
  const push = (m: Map<string, string[]>, k: string, v: string): void => {
    const l = m.get(k);
    if (l === undefined) m.set(k, [v]);
    else l.push(v);
  };

  if (full) {
    // Create-then-delete makes the delete safe when the table is absent; the whole file is one atomic transaction.
    head.push(`add table ${t}`, `delete table ${t}`, `add table ${t} { comment "rules for kube-proxy" ; }`);
    for (const [name, spec] of BASE_CHAINS) decl.push(`add chain ${t} ${name}${spec === '' ? '' : ` { ${spec} ; }`}`);
    for (const [name, kind, spec] of BASE_MAPS) decl.push(`add ${kind} ${t} ${name} { ${spec} ; }`);
    for (const proto of SLOT_PROTOCOLS) {
      for (let i = 0; i < ENDPOINT_SHARDS; i++)
        decl.push(`add map ${t} ${ENDPOINT_DNAT}${proto}-${i} { ${mapSpec(`${ENDPOINT_DNAT}${proto}-${i}`)[1]} ; }`);
    }
    for (const [chain, list] of baseRules(cfg)) {
      for (const r of list) rules.push(`add rule ${t} ${chain} ${r}`);
      ruleCount += list.length;
    }
  }

  let endpointCount = 0;
  if (full) for (const list of input.endpoints.values()) endpointCount += list.length;
  const writer = full ? new FullWriter(t, input.services.size, endpointCount, state.pool) : undefined;
  for (const name of full ? input.services.keys() : input.changed) {
    const svc = input.services.get(name);
    if (writer !== undefined) {
      // The port's objects live only while its text is written; the state keeps what they were computed from.
      const endpoints = input.endpoints.get(name);
      const source: PortSource = { svc: svc!, endpoints, node: input.node, cfg, slotStart: ctx.slots.next };
      ports.set(name, source);
      writer.port(portObjects(svc!, endpoints ?? [], ctx, undefined), setRefs);
      continue;
    }
    const old = objectsOf(state.ports.get(name));
    const now = svc === undefined ? undefined : portObjects(svc, input.endpoints.get(name) ?? [], ctx, old);
    if (now === undefined) ports.delete(name);
    else ports.set(name, now);
    // Sets are declared again whenever they exist: a chain body naming @set needs it in this transaction.
    for (const [set, timeout] of now?.sets ?? []) {
      decl.push(`add set ${t} ${set} { type ipv4_addr ; flags dynamic,timeout ; timeout ${timeout}s ; }`);
      stale.sets.delete(set);
    }
    for (const [chain, list] of now?.chains ?? []) {
      const before = old?.chains.get(chain);
      if (before !== undefined && sameRules(before, list)) continue;
      const exists = before !== undefined || stale.chains.delete(chain);
      if (!exists) decl.push(`add chain ${t} ${chain}`);
      else if (before !== undefined && before.length > 0) flush.push(`flush chain ${t} ${chain}`);
      const body = list.join(' ; ');
      // A body may name only maps nft knows in this transaction (it does not read them from the kernel).
      for (const [, map] of body.matchAll(SLOT_MAP_REF)) {
        if (slotsDeclared.has(map!)) continue;
        decl.unshift(`add map ${t} ${map} { ${mapSpec(map!)[1]} ; }`);
        slotsDeclared.add(map!);
      }
      rules.push(`add chain ${t} ${chain} { ${body} ; }`);
      ruleCount += list.length - (before?.length ?? 0);
    }
    for (const [chain, list] of old?.chains ?? []) {
      if (now?.chains.has(chain) === true) continue;
      ruleCount -= list.length;
      if (list.length > 0) flush.push(`flush chain ${t} ${chain}`);
      stale.chains.add(chain);
    }
    for (const set of old?.sets.keys() ?? []) if (now?.sets.has(set) !== true) stale.sets.add(set);
    // Elements: delete what changed or went, add what is new; set elements (cluster IPs, hairpin pairs) are shared, so counted.
    const newEls = new Map((now?.elements ?? []).map((e) => [`${e.map}|${e.key}`, e]));
    const oldEls = new Map((old?.elements ?? []).map((e) => [`${e.map}|${e.key}`, e]));
    for (const [k, e] of oldEls) {
      const n = newEls.get(k);
      if (n !== undefined && n.value === e.value) continue;
      if (e.value === undefined) {
        const c = setRefs.get(e.map, e.key) - 1;
        setRefs.set(e.map, e.key, c);
        if (c > 0) continue;
      }
      if (lazyElements(e.map) && n === undefined) stale.elements.set(k, e);
      else {
        push(elemDel, e.map, e.key);
        elementCount--;
      }
    }
    for (const [k, e] of newEls) {
      const o = oldEls.get(k);
      if (o !== undefined && o.value === e.value) continue;
      if (e.value === undefined) {
        const c = setRefs.get(e.map, e.key);
        setRefs.set(e.map, e.key, c + 1);
        if (c > 0) continue;
      }
      const left = stale.elements.get(k);
      if (left !== undefined) {
        stale.elements.delete(k);
        // A stale set element is still in the kernel: nothing to add. A stale map element must go first.
        if (left.value === e.value) continue;
        push(elemDel, left.map, left.key);
        elementCount--;
      }
      push(elemAdd, e.map, el(e));
      elementCount++;
    }
  }

  // Once nft reads the chains anyway (a delete, a full sync), the stale objects go in the same transaction.
  if (!full && (opts.purgeStale === true || elemDel.size > 0)) {
    for (const e of stale.elements.values()) push(elemDel, e.map, e.key);
    elementCount -= stale.elements.size;
    for (const c of [...stale.chains].sort()) tail.push(`delete chain ${t} ${c}`);
    for (const s of [...stale.sets].sort()) tail.push(`delete set ${t} ${s}`);
    stale.chains.clear();
    stale.sets.clear();
    stale.elements.clear();
  }
  const elems: string[] = [];
  for (const [m, keys] of elemDel) elems.push(`delete element ${t} ${m} { ${keys.join(', ')} }`);
  const adds: string[] = [];
  for (const [m, list] of elemAdd) {
    const [kind, spec] = mapSpec(m);
    adds.push(`add ${kind} ${t} ${m} { ${spec} ; elements = { ${list.join(', ')} } ; }`);
  }
  if (writer !== undefined) {
    ruleCount += writer.ruleCount;
    elementCount += writer.elementCount;
  }
  // A full rendering has its bytes and decodes its text only if read; a partial one the other way round.
  let parts: readonly Buffer[] | undefined = writer?.parts(head, decl, rules);
  let text =
    parts === undefined
      ? [...head, ...decl, ...flush, ...elems, ...rules, ...adds, ...tail].map((l) => `${l}\n`).join('')
      : undefined;
  const bytes = parts !== undefined ? parts.reduce((n, b) => n + b.length, 0) : Buffer.byteLength(text!);
  const rendering: NftRendering = {
    get text(): string {
      return (text ??= Buffer.concat(parts!).toString('latin1'));
    },
    get parts(): readonly Buffer[] {
      return (parts ??= text === '' ? [] : [Buffer.from(text!, 'latin1')]);
    },
    bytes,
    ports,
    setRefs,
    rules: ruleCount,
    elements: elementCount,
    nextSlot: ctx.slots.next,
    stale,
    readsChains: full || elemDel.size > 0 || tail.length > 0,
  };
  if (writer !== undefined) state.buffers.set(rendering, writer.backing());
  return rendering;
}

/**
 * What a full rendering computed a port's objects from. The objects are computed again, the same, when a later
 * partial rendering needs them: keeping them for every port (about 4 KB each) made the first full rendering at
 * 10k services spend most of its time in the garbage collector copying them.
 */
interface PortSource {
  readonly svc: ServicePortInfo;
  readonly endpoints: readonly Endpoint[] | undefined;
  readonly node: NodeInfo;
  readonly cfg: NftConfig;
  /** The first endpoint slot its blocks took. */
  readonly slotStart: number;
}

/** A port as the state holds it: its objects (after a partial rendering) or what a full one built them from. */
export type PortEntry = PortObjects | PortSource;

/** A port's objects, computed again from its source when a full rendering left only that. */
export function objectsOf(entry: PortEntry | undefined): PortObjects | undefined {
  if (entry === undefined || 'chains' in entry) return entry;
  return portObjects(
    entry.svc,
    entry.endpoints ?? [],
    { node: entry.node, cfg: entry.cfg, slots: { next: entry.slotStart } },
    undefined,
  );
}

/**
 * A full transaction written as bytes while ports are computed: their declarations, rules, and each map's
 * elements (in the order maps first get one), so no per-port strings outlive the port.
 */
class FullWriter {
  private readonly decl: RuleBuffer;
  private readonly rules: RuleBuffer;
  private readonly elements = new Map<string, RuleBuffer>();
  /** Rules and elements written. */
  ruleCount = 0;
  elementCount = 0;

  /**
   * Buffers are sized for `ports` ports and `endpoints` endpoints, generously: pages never written cost nothing,
   * while growing one copies it into fresh memory, and first writes to fresh memory are what costs here.
   */
  constructor(
    private readonly t: string,
    private readonly ports: number,
    private readonly endpoints: number,
    private readonly pool: BufferPool,
  ) {
    this.decl = new RuleBuffer(Math.max(64 * 1024, 128 * ports), pool);
    this.rules = new RuleBuffer(Math.max(64 * 1024, 256 * ports), pool);
  }

  /** The buffers written into, for the pool once nft has read them. */
  backing(): Buffer[] {
    return [this.decl, this.rules, ...this.elements.values()].map((b) => b.backing());
  }

  /** Writes one port, counting its rules and the elements it adds (a shared set element only once). */
  port(p: PortObjects, setRefs: SetRefs): void {
    const t = this.t;
    for (const [set, timeout] of p.sets)
      this.decl.line(`add set ${t} ${set} { type ipv4_addr ; flags dynamic,timeout ; timeout ${timeout}s ; }`);
    for (const [chain, list] of p.chains) {
      this.decl.line(`add chain ${t} ${chain}`);
      for (const r of list) this.rules.line(`add rule ${t} ${chain} ${r}`);
      this.ruleCount += list.length;
    }
    for (const e of p.elements) {
      if (e.value === undefined && setRefs.add(e.map, e.key) > 1) continue;
      let b = this.elements.get(e.map);
      if (b === undefined) this.elements.set(e.map, (b = new RuleBuffer(this.estimate(e.map), this.pool)));
      else b.write(', ');
      b.write(e.value === undefined ? e.key : `${e.key} : ${e.value}`);
      this.elementCount++;
    }
  }

  /** Bytes to reserve for a map's elements: endpoint slots spread over the shards; hairpin pairs one an endpoint. */
  private estimate(map: string): number {
    const perEndpoint = map.startsWith(ENDPOINT_DNAT)
      ? (2 * 32 * this.endpoints) / ENDPOINT_SHARDS
      : map === 'hairpin-endpoints'
        ? 32 * this.endpoints
        : 0;
    return Math.max(64 * 1024, perEndpoint, map === 'service-ips' || map === 'cluster-ips' ? 96 * this.ports : 0);
  }

  /** The transaction: head and base lines, then the ports' declarations and rules, then each map's elements. */
  parts(head: readonly string[], decl: readonly string[], rules: readonly string[]): Buffer[] {
    const parts: Buffer[] = [
      Buffer.from([...head, ...decl, ''].join('\n'), 'latin1'),
      this.decl.bytes(),
      Buffer.from(rules.map((r) => `${r}\n`).join(''), 'latin1'),
      this.rules.bytes(),
    ];
    for (const [m, b] of this.elements) {
      const [kind, spec] = mapSpec(m);
      parts.push(
        Buffer.from(`add ${kind} ${this.t} ${m} { ${spec} ; elements = { `, 'latin1'),
        b.bytes(),
        Buffer.from(' } ; }\n', 'latin1'),
      );
    }
    return parts;
  }
}

/** Records a rendering as the kernel's state once `nft -f` accepted it. */
export function commitNftables(state: NftState, r: NftRendering): void {
  state.ports = r.ports;
  state.setRefs = r.setRefs;
  state.rules = r.rules;
  state.elements = r.elements;
  state.nextSlot = r.nextSlot;
  state.stale = r.stale;
}

/** How many stale objects wait for deletion. */
export function staleCount(state: NftState): number {
  return state.stale.chains.size + state.stale.sets.size + state.stale.elements.size;
}
