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
import { BASE_CHAINS, BASE_MAPS, ENDPOINT_DNAT, ENDPOINT_SHARDS, SLOT_PROTOCOLS, baseRules, mapSpec, type NftConfig } from './base.js';
import { FAMILY, TABLE } from './names.js';
import type { Endpoint, NodeInfo, ServicePortInfo } from '../types.js';
import { portObjects, type Element, type PortContext, type PortObjects } from './port_objects.js';

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
  ports = new Map<string, PortObjects>();
  /** References to each set element, since several ports share one. */
  setRefs = new SetRefs();
  rules = 0;
  elements = 0;
  /** The next free slot of endpoint-dnat; slots are not reused before a full sync rebuilds the table. */
  nextSlot = 0;
  stale: Stale = emptyStale();
}

/** One rendering: the transaction text and the state it leads to. */
export interface NftRendering {
  readonly text: string;
  readonly ports: Map<string, PortObjects>;
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
const sameRules = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((r, i) => r === b[i]);

/** Renders a transaction; `state` is what the kernel holds (ignored on a full rendering). */
export function renderNftables(input: SyncInput, cfg: NftConfig, state: NftState, opts: NftRenderOptions = {}): NftRendering {
  const t = `${FAMILY} ${TABLE}`;
  const full = input.full;
  const head: string[] = [];
  const decl: string[] = [];
  const flush: string[] = [];
  const rules: string[] = [];
  const elemDel = new Map<string, string[]>();
  const elemAdd = new Map<string, string[]>();
  const tail: string[] = [];
  const ports = full ? new Map<string, PortObjects>() : new Map(state.ports);
  const setRefs = full ? new SetRefs() : state.setRefs.clone();
  const stale: Stale = full ? emptyStale() : { chains: new Set(state.stale.chains), sets: new Set(state.stale.sets), elements: new Map(state.stale.elements) };
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
      for (let i = 0; i < ENDPOINT_SHARDS; i++) decl.push(`add map ${t} ${ENDPOINT_DNAT}${proto}-${i} { ${mapSpec(`${ENDPOINT_DNAT}${proto}-${i}`)[1]} ; }`);
    }
    for (const [chain, list] of baseRules(cfg)) {
      for (const r of list) rules.push(`add rule ${t} ${chain} ${r}`);
      ruleCount += list.length;
    }
  }

  for (const name of full ? input.services.keys() : input.changed) {
    const svc = input.services.get(name);
    if (full) {
      // A port whose service, endpoints and slots are as at the last full rendering keeps its objects and text.
      const now = fullPortObjects(name, svc!, input, cfg, ctx, state.ports.get(name));
      ports.set(name, now);
      const f = fullText(now, t);
      if (f.decl !== '') decl.push(f.decl);
      if (f.rules !== '') rules.push(f.rules);
      ruleCount += f.ruleCount;
      for (let i = 0; i < f.els.length; i++) {
        if (f.shared[i]!) {
          const c = setRefs.get(f.maps[i]!, f.els[i]!);
          setRefs.set(f.maps[i]!, f.els[i]!, c + 1);
          if (c > 0) continue;
        }
        push(elemAdd, f.maps[i]!, f.els[i]!);
        elementCount += f.counts[i]!;
      }
      continue;
    }
    const old = state.ports.get(name);
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
  const text = [...head, ...decl, ...flush, ...elems, ...rules, ...adds, ...tail].join('\n');
  return {
    text: text === '' ? '' : `${text}\n`,
    ports,
    setRefs,
    rules: ruleCount,
    elements: elementCount,
    nextSlot: ctx.slots.next,
    stale,
    readsChains: full || elemDel.size > 0 || tail.length > 0,
  };
}

/** What a full rendering last built a port's objects from; valid only while all of it is the same. */
interface FullSource {
  readonly svc: ServicePortInfo;
  readonly endpoints: readonly Endpoint[] | undefined;
  readonly node: NodeInfo;
  readonly cfg: NftConfig;
  readonly slotStart: number;
  readonly slotEnd: number;
}

/** A port's share of a full transaction, kept with its objects. */
interface FullText {
  /** Its `add set` and `add chain` lines, joined. */
  readonly decl: string;
  /** Its `add rule` lines, joined. */
  readonly rules: string;
  readonly ruleCount: number;
  /**
   * Element text and the map it goes to, in the order the elements first name each map: a set element alone
   * (shared by ports, so counted; its text is its key), a map's elements joined with ", " (few strings kept).
   */
  readonly els: readonly string[];
  readonly maps: readonly string[];
  /** How many elements each text holds. */
  readonly counts: readonly number[];
  /** Whether each text is a (shared) set element. */
  readonly shared: readonly boolean[];
}

const fullSources = new WeakMap<PortObjects, FullSource>();
const fullTexts = new WeakMap<PortObjects, FullText>();

/**
 * A port's objects for a full rendering: the previous ones when they were built by a full rendering from the same
 * service, endpoints, node and config objects (these are replaced, never changed in place, when anything changes)
 * and would get the same slots; else new ones, whose slots are then the next contiguous block.
 */
function fullPortObjects(name: string, svc: ServicePortInfo, input: SyncInput, cfg: NftConfig, ctx: PortContext, prev: PortObjects | undefined): PortObjects {
  const endpoints = input.endpoints.get(name);
  const src = prev === undefined ? undefined : fullSources.get(prev);
  if (src !== undefined && src.svc === svc && src.endpoints === endpoints && src.node === input.node && src.cfg === cfg && src.slotStart === ctx.slots.next) {
    ctx.slots.next = src.slotEnd;
    return prev!;
  }
  const slotStart = ctx.slots.next;
  const now = portObjects(svc, endpoints ?? [], ctx, undefined);
  fullSources.set(now, { svc, endpoints, node: input.node, cfg, slotStart, slotEnd: ctx.slots.next });
  return now;
}

/** The lines a full rendering writes for a port (computed once per objects). */
function fullText(p: PortObjects, t: string): FullText {
  const known = fullTexts.get(p);
  if (known !== undefined) return known;
  const decl: string[] = [];
  const rules: string[] = [];
  let ruleCount = 0;
  for (const [set, timeout] of p.sets) decl.push(`add set ${t} ${set} { type ipv4_addr ; flags dynamic,timeout ; timeout ${timeout}s ; }`);
  for (const [chain, list] of p.chains) {
    decl.push(`add chain ${t} ${chain}`);
    for (const r of list) rules.push(`add rule ${t} ${chain} ${r}`);
    ruleCount += list.length;
  }
  const els: string[] = [];
  const maps: string[] = [];
  const counts: number[] = [];
  const shared: boolean[] = [];
  // A map's elements go where its first one is: each map's list, and the order maps first appear, stay the same.
  const groups: string[][] = [];
  for (const e of p.elements) {
    if (e.value === undefined) {
      els.push(e.key);
      maps.push(e.map);
      counts.push(1);
      shared.push(true);
      groups.push([]);
      continue;
    }
    let at = maps.indexOf(e.map);
    if (at < 0 || shared[at]!) {
      at = maps.length;
      els.push('');
      maps.push(e.map);
      counts.push(0);
      shared.push(false);
      groups.push([]);
    }
    groups[at]!.push(el(e));
    counts[at]!++;
  }
  for (let i = 0; i < els.length; i++) if (!shared[i]!) els[i] = groups[i]!.join(', ');
  const f = { decl: decl.join('\n'), rules: rules.join('\n'), ruleCount, els, maps, counts, shared };
  fullTexts.set(p, f);
  return f;
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
