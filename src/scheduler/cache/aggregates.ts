/**
 * Per-domain aggregates of the assigned and assumed pods, kept up to date on
 * every pod change so that PodTopologySpread and InterPodAffinity cost
 * O(distinct selectors and terms) per pod, not O(all pods): upstream's
 * original InterPodAffinity walked every pod on every node for every pod.
 *  - MatchCounters count pods matching one selector, by topology domain; they
 *    are built on first use and kept incrementally afterwards (LRU-bounded).
 *  - TermAggregates merge equal affinity terms of existing pods, with the
 *    domains those pods occupy (the symmetric side of inter-pod affinity).
 */
import type { LabelSelectorMatcher } from '../../api/index.js';
import type { ExistingTerms, MatchCounter } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node_info.js';
import type { AffinityTerm, PodInfo } from '../framework/pod_info.js';

/** A MatchCounter the cache maintains. */
export class Counter implements MatchCounter {
  readonly byDomain = new Map<string, number>();
  readonly byNode = new Map<string, number>();
  total = 0;
  lastUsed = 0;

  constructor(
    readonly namespaces: ReadonlySet<string> | null,
    readonly selector: LabelSelectorMatcher,
    readonly topologyKey: string,
  ) {}

  /** Counts `pod` on `node` when it matches (sign -1 removes). */
  apply(pod: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    if (this.namespaces !== null && !this.namespaces.has(pod.namespace)) return;
    if (!this.selector.matches(pod.labels)) return;
    this.total += sign;
    bump(this.byNode, node.name, sign);
    const d = node.labels[this.topologyKey];
    if (d !== undefined) bump(this.byDomain, d, sign);
  }
}

/** Existing pods' equal terms merged. */
export class TermAggregate implements ExistingTerms {
  readonly byDomain = new Map<string, number>();
  pods = 0;
  constructor(
    readonly term: AffinityTerm,
    readonly kind: ExistingTerms['kind'],
  ) {}
}

/** Adds `sign * by` to map[key], dropping zeros. */
export function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n === 0) map.delete(key);
  else map.set(key, n);
}

const KINDS = ['requiredAffinity', 'requiredAntiAffinity', 'preferredAffinity', 'preferredAntiAffinity'] as const;

/** Every aggregate of the cache, updated as pods come and go. */
export class Aggregates {
  private readonly counters = new Map<string, Counter>();
  private readonly terms = new Map<string, TermAggregate>();
  private seq = 0;

  constructor(
    private readonly maxCounters = 512,
    /** Every pod with its node, for building a counter on first use. */
    private readonly allPods: () => Iterable<[PodInfo, NodeInfo]>,
  ) {}

  /** The counter for a selector, built now if new. */
  counter(
    namespaces: ReadonlySet<string> | null,
    selector: LabelSelectorMatcher,
    topologyKey: string,
    signature: string,
  ): Counter {
    let c = this.counters.get(signature);
    if (c === undefined) {
      c = new Counter(namespaces, selector, topologyKey);
      for (const [p, n] of this.allPods()) c.apply(p, n, 1);
      if (this.counters.size >= this.maxCounters) this.evictOldest();
      this.counters.set(signature, c);
    }
    c.lastUsed = ++this.seq;
    return c;
  }

  /** Term aggregates of existing pods. */
  existingTerms(): Iterable<TermAggregate> {
    return this.terms.values();
  }

  /** Accounts a pod placed on (sign 1) or removed from (sign -1) a node. */
  apply(pod: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    for (const c of this.counters.values()) c.apply(pod, node, sign);
    for (const kind of KINDS) {
      const list = pod[kind];
      for (let i = 0; i < list.length; i++) {
        const t = list[i];
        const key = `${kind}|${t.weight}|${t.signature}`;
        let agg = this.terms.get(key);
        if (agg === undefined) {
          if (sign < 0) continue;
          this.terms.set(key, (agg = new TermAggregate(t, kind)));
        }
        agg.pods += sign;
        const d = node.labels[t.topologyKey];
        if (d !== undefined) bump(agg.byDomain, d, sign * t.weight);
        if (agg.pods <= 0) this.terms.delete(key);
      }
    }
  }

  /** Drops everything that depends on node labels; counters rebuild on next use, terms now. */
  invalidate(): void {
    this.counters.clear();
    this.terms.clear();
    for (const [p, n] of this.allPods())
      if (
        p.requiredAffinity.length +
          p.requiredAntiAffinity.length +
          p.preferredAffinity.length +
          p.preferredAntiAffinity.length >
        0
      )
        this.apply(p, n, 1);
  }

  private evictOldest(): void {
    let oldest: string | undefined;
    let min = Infinity;
    for (const [k, c] of this.counters) {
      if (c.lastUsed < min) {
        min = c.lastUsed;
        oldest = k;
      }
    }
    if (oldest !== undefined) this.counters.delete(oldest);
  }
}
