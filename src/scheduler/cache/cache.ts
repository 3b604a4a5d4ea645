/**
 * The scheduler cache, like upstream's backend/cache: nodes with their
 * assigned and assumed pods. A pod is assumed at Reserve and confirmed when
 * the informer sees the binding; as upstream does since v1.32, assumed pods
 * never expire on a timer (expiry double-books nodes); a failed bind forgets.
 *
 * It is also the Snapshot. Upstream copies changed NodeInfos into a snapshot
 * because informer goroutines mutate the cache concurrently; here a whole
 * scheduling cycle (PreFilter to Reserve) runs in one synchronous turn of the
 * event loop, so no event can interleave, and the live NodeInfos are a
 * consistent snapshot at zero copy cost: every update is incremental.
 */
import type { LabelSelectorMatcher } from '../../api/index.js';
import type { Snapshot } from '../framework/interface.js';
import { H_STRIDE, NodeInfo } from '../framework/node_info.js';
import { refreshPodInfo, type PodInfo } from '../framework/pod_info.js';
import type { Node, Pod } from '../../api/index.js';
import { Aggregates, bump, type Counter, type TermAggregate } from './aggregates.js';

interface PodState {
  info: PodInfo;
  nodeName: string;
  assumed: boolean;
}

/** Nodes and the pods on them, assumed or confirmed. */
export class SchedulerCache implements Snapshot {
  private readonly nodeInfos = new Map<string, NodeInfo>();
  private readonly list: NodeInfo[] = [];
  private readonly podStates = new Map<string, PodState>();
  private readonly domainIndex = new Map<string, Map<string, number>>();
  private readonly aggregates: Aggregates;
  /** The shared slab of the NodeInfos' hot numbers, and free slots in it. */
  private slab = new Float64Array(H_STRIDE * 1024);
  private nextSlot = 0;
  private readonly freeSlots: number[] = [];

  constructor(maxCounters = 512) {
    this.aggregates = new Aggregates(maxCounters, () => this.allPods());
  }

  // --- Snapshot

  nodes(): readonly NodeInfo[] {
    return this.list;
  }

  get(name: string): NodeInfo | undefined {
    const n = this.nodeInfos.get(name);
    return n?.node === undefined ? undefined : n;
  }

  matchCounter(
    namespaces: ReadonlySet<string> | null,
    selector: LabelSelectorMatcher,
    topologyKey: string,
    signature: string,
  ): Counter {
    return this.aggregates.counter(namespaces, selector, topologyKey, signature);
  }

  existingTerms(): Iterable<TermAggregate> {
    return this.aggregates.existingTerms();
  }

  domains(topologyKey: string): ReadonlyMap<string, number> {
    let idx = this.domainIndex.get(topologyKey);
    if (idx === undefined) {
      idx = new Map();
      for (const n of this.list) {
        const v = n.labels[topologyKey];
        if (v !== undefined) bump(idx, v, 1);
      }
      this.domainIndex.set(topologyKey, idx);
    }
    return idx;
  }

  // --- nodes

  /** Number of nodes with a Node object. */
  get nodeCount(): number {
    return this.list.length;
  }

  /** Adds or replaces a node; returns true when labels changed (aggregates were rebuilt). */
  setNode(node: Node): boolean {
    const name = node.metadata?.name ?? '';
    let ni = this.nodeInfos.get(name);
    if (ni === undefined) this.nodeInfos.set(name, (ni = this.newNodeInfo(name)));
    const had = ni.node !== undefined;
    const oldLabels = ni.labels;
    if (had) this.indexDomains(ni, -1);
    ni.setNode(node);
    this.indexDomains(ni, 1);
    if (ni.listIndex < 0) {
      ni.listIndex = this.list.length;
      this.list.push(ni);
    }
    const labelsChanged = had ? !sameLabels(oldLabels, ni.labels) : ni.pods.size > 0;
    if (labelsChanged) this.aggregates.invalidate();
    return labelsChanged;
  }

  /** Removes a node; its pods stay accounted until they are deleted, like upstream. */
  removeNode(name: string): void {
    const ni = this.nodeInfos.get(name);
    if (ni === undefined) return;
    if (ni.node !== undefined) this.indexDomains(ni, -1);
    this.unlist(ni);
    ni.node = undefined;
    if (ni.pods.size === 0) this.dropNodeInfo(ni);
  }

  // --- pods

  /** Assumes `pod` on `nodeName` (Reserve): its resources count at once. */
  assumePod(info: PodInfo, nodeName: string): void {
    if (this.podStates.has(info.key)) throw new Error(`pod ${info.key} is already in the cache`);
    this.place(info, nodeName);
    this.podStates.set(info.key, { info, nodeName, assumed: true });
  }

  /** Forgets an assumed pod after a failed bind or a rejection. */
  forgetPod(key: string): void {
    const st = this.podStates.get(key);
    if (st === undefined || !st.assumed) return;
    this.unplace(st);
    this.podStates.delete(key);
  }

  /** True when the pod is assumed and not yet confirmed by the informer. */
  isAssumed(key: string): boolean {
    return this.podStates.get(key)?.assumed === true;
  }

  /** True when the pod is known to the cache (assumed or assigned). */
  hasPod(key: string): boolean {
    return this.podStates.has(key);
  }

  /** An assigned pod seen by the informer: confirms an assumed one, or adds it. */
  addPod(info: PodInfo, nodeName: string): void {
    const st = this.podStates.get(info.key);
    if (st !== undefined) this.unplace(st);
    this.place(info, nodeName);
    this.podStates.set(info.key, { info, nodeName, assumed: false });
  }

  /** A newer object of a confirmed pod whose spec and labels are unchanged: the cache keeps it instead of the old one. */
  refreshPod(key: string, pod: Pod): void {
    const st = this.podStates.get(key);
    if (st !== undefined && !st.assumed) refreshPodInfo(st.info, pod);
  }

  /** An assigned pod was deleted (or became terminal). */
  removePod(key: string): void {
    const st = this.podStates.get(key);
    if (st === undefined) return;
    this.unplace(st);
    this.podStates.delete(key);
  }

  /** Number of pods in the cache, and how many are assumed. */
  podCounts(): { pods: number; assumed: number } {
    let assumed = 0;
    for (const st of this.podStates.values()) if (st.assumed) assumed++;
    return { pods: this.podStates.size, assumed };
  }

  private place(info: PodInfo, nodeName: string): void {
    let ni = this.nodeInfos.get(nodeName);
    if (ni === undefined) this.nodeInfos.set(nodeName, (ni = this.newNodeInfo(nodeName)));
    ni.addPod(info);
    this.aggregates.apply(info, ni, 1);
  }

  private unplace(st: PodState): void {
    const ni = this.nodeInfos.get(st.nodeName);
    if (ni === undefined) return;
    if (ni.removePod(st.info.key)) this.aggregates.apply(st.info, ni, -1);
    if (ni.node === undefined && ni.pods.size === 0) this.dropNodeInfo(ni);
  }

  private newNodeInfo(name: string): NodeInfo {
    let o = this.freeSlots.pop();
    if (o === undefined) {
      o = this.nextSlot;
      this.nextSlot += H_STRIDE;
      if (this.nextSlot > this.slab.length) {
        const bigger = new Float64Array(this.slab.length * 2);
        for (const ni of this.nodeInfos.values()) ni.moveSlab(bigger, ni.o);
        this.slab = bigger;
      }
    }
    return new NodeInfo(name, undefined, { h: this.slab, o });
  }

  private dropNodeInfo(ni: NodeInfo): void {
    this.nodeInfos.delete(ni.name);
    this.freeSlots.push(ni.o);
  }

  private *allPods(): Iterable<[PodInfo, NodeInfo]> {
    for (const ni of this.nodeInfos.values()) for (const p of ni.pods.values()) yield [p, ni];
  }

  private unlist(ni: NodeInfo): void {
    const i = ni.listIndex;
    if (i < 0) return;
    const last = this.list.pop()!;
    if (last !== ni) {
      this.list[i] = last;
      last.listIndex = i;
    }
    ni.listIndex = -1;
  }

  private indexDomains(ni: NodeInfo, sign: 1 | -1): void {
    for (const [key, idx] of this.domainIndex) {
      const v = ni.labels[key];
      if (v !== undefined) bump(idx, v, sign);
    }
  }
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}
