/**
 * NodeInfo, like upstream's framework.NodeInfo: one node and the aggregates
 * the filters need (requested resources, pod count, used host ports), kept
 * current as pods are added and removed, so a filter is O(1) per node.
 */
import { addResource, allocatableOf, cloneResource, newResource, type Resource } from './resource.js';
import { hasPodAffinityTerms, type PodInfo } from './pod_info.js';
import type { Node, Taint } from '../../api/index.js';

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Offsets of the hot per-node numbers in a NodeInfo's slab. Filters and scores read these for hundreds
 * of nodes per pod; kept in one Float64Array shared by all nodes of a cache, they are contiguous and
 * unboxed, where object fields would cost a few cache misses per node (memory sizes are not Smis).
 */
export const H = {
  allocCPU: 0,
  allocMem: 1,
  allocEph: 2,
  allowedPods: 3,
  reqCPU: 4,
  reqMem: 5,
  reqEph: 6,
  pods: 7,
  nzCPU: 8,
  nzMem: 9,
} as const;
/** Slab slots per node. */
export const H_STRIDE = 16;

/** A node plus the pods assigned or assumed on it. */
export class NodeInfo {
  node: Node | undefined;
  name: string;
  labels: Readonly<Record<string, string>> = NO_LABELS;
  taints: readonly Taint[] = [];
  unschedulable = false;
  allocatable: Resource = newResource();
  /** Sum of the pods' effective requests. */
  requested: Resource = newResource();
  /** Sum of requests with defaults for unset CPU/memory, for scoring. */
  nonZeroCPU = 0;
  nonZeroMemory = 0;
  readonly pods = new Map<string, PodInfo>();
  /** Pods with any pod (anti-)affinity term. */
  podsWithAffinity = 0;
  /** host port keys in use -> count. */
  usedPorts: Map<string, number> | undefined;
  /** Bumped on every change, like upstream's generation. */
  generation = 0;
  /** Position in the cache's node list; -1 when not listed (no Node object yet). */
  listIndex = -1;
  /** The slab holding this node's hot numbers at offset `o` (see H). */
  h: Float64Array;
  o: number;

  constructor(name: string, node?: Node, slab?: { h: Float64Array; o: number }) {
    this.name = name;
    this.h = slab?.h ?? new Float64Array(H_STRIDE);
    this.o = slab?.o ?? 0;
    this.h.fill(0, this.o, this.o + H_STRIDE);
    if (node !== undefined) this.setNode(node);
  }

  /** Replaces the node object (labels, taints, allocatable). */
  setNode(node: Node): void {
    this.node = node;
    this.labels = node.metadata?.labels ?? NO_LABELS;
    this.taints = node.spec?.taints ?? [];
    this.unschedulable = node.spec?.unschedulable === true;
    this.allocatable = allocatableOf(node.status?.allocatable);
    const a = this.allocatable;
    const o = this.o;
    this.h[o + H.allocCPU] = a.milliCPU;
    this.h[o + H.allocMem] = a.memory;
    this.h[o + H.allocEph] = a.ephemeralStorage;
    this.h[o + H.allowedPods] = a.allowedPodNumber;
    this.generation++;
  }

  /** Moves the hot numbers to another slab slot (the cache grows or compacts its slab). */
  moveSlab(h: Float64Array, o: number): void {
    h.set(this.h.subarray(this.o, this.o + H_STRIDE), o);
    this.h = h;
    this.o = o;
  }

  /** Adds a pod's requests; the caller keeps keys unique. */
  addPod(p: PodInfo): void {
    this.pods.set(p.key, p);
    this.account(p, 1);
  }

  /** Removes a pod; false when it was not here. */
  removePod(key: string): boolean {
    const p = this.pods.get(key);
    if (p === undefined) return false;
    this.pods.delete(key);
    this.account(p, -1);
    return true;
  }

  /** A deep enough copy for what-if checks (preemption): pods and aggregates copied, the node shared. */
  clone(): NodeInfo {
    const c = new NodeInfo(this.name);
    c.h.set(this.h.subarray(this.o, this.o + H_STRIDE), 0);
    c.node = this.node;
    c.labels = this.labels;
    c.taints = this.taints;
    c.unschedulable = this.unschedulable;
    c.allocatable = this.allocatable;
    c.requested = cloneResource(this.requested);
    c.nonZeroCPU = this.nonZeroCPU;
    c.nonZeroMemory = this.nonZeroMemory;
    for (const [k, v] of this.pods) c.pods.set(k, v);
    c.podsWithAffinity = this.podsWithAffinity;
    c.usedPorts = this.usedPorts === undefined ? undefined : new Map(this.usedPorts);
    c.generation = this.generation;
    return c;
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    addResource(this.requested, p.requests, sign);
    this.nonZeroCPU += sign * p.nonZeroCPU;
    this.nonZeroMemory += sign * p.nonZeroMemory;
    const h = this.h;
    const o = this.o;
    const r = p.requests;
    h[o + H.reqCPU] += sign * r.milliCPU;
    h[o + H.reqMem] += sign * r.memory;
    h[o + H.reqEph] += sign * r.ephemeralStorage;
    h[o + H.pods] += sign;
    h[o + H.nzCPU] += sign * p.nonZeroCPU;
    h[o + H.nzMem] += sign * p.nonZeroMemory;
    if (hasPodAffinityTerms(p)) this.podsWithAffinity += sign;
    if (p.hostPorts.length > 0) {
      this.usedPorts ??= new Map();
      for (const k of p.hostPorts) {
        const n = (this.usedPorts.get(k) ?? 0) + sign;
        if (n <= 0) this.usedPorts.delete(k);
        else this.usedPorts.set(k, n);
      }
    }
    this.generation++;
  }
}
