/**
 * Resource arithmetic on plain numbers, like upstream's framework.Resource:
 * CPU in millicores, memory and ephemeral storage in bytes, and any other
 * resource (nvidia.com/gpu, hugepages) as a scalar. Quantity strings are
 * parsed once per distinct string and memoised, since a cluster repeats the
 * same few values ("100m", "1Gi") millions of times.
 */
import { milliValue, quantityValue } from '../../api/index.js';

/** Requested or allocatable resources. */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Pods a node accepts (allocatable only). */
  allowedPodNumber: number;
  /** Extended and other scalar resources, e.g. nvidia.com/gpu; undefined when none. */
  scalar: Map<string, number> | undefined;
}

/** An all-zero Resource. */
export const newResource = (): Resource => ({
  milliCPU: 0,
  memory: 0,
  ephemeralStorage: 0,
  allowedPodNumber: 0,
  scalar: undefined,
});

const milliMemo = new Map<string | number, number>();
const valueMemo = new Map<string | number, number>();

/** Millivalue of a quantity, memoised; bad quantities count as 0 (validation rejects them at the server). */
export function milli(q: string | number): number {
  let v = milliMemo.get(q);
  if (v === undefined) {
    try {
      v = milliValue(q);
    } catch {
      v = 0;
    }
    if (milliMemo.size < 10_000) milliMemo.set(q, v);
  }
  return v;
}

/** Integer value of a quantity, memoised; bad quantities count as 0. */
export function value(q: string | number): number {
  let v = valueMemo.get(q);
  if (v === undefined) {
    try {
      v = quantityValue(q);
    } catch {
      v = 0;
    }
    if (valueMemo.size < 10_000) valueMemo.set(q, v);
  }
  return v;
}

/** Resources as named in a ResourceList into `r`, with `combine` deciding add or max. */
export function accumulate(
  r: Resource,
  list: Record<string, string | number> | undefined,
  combine: (a: number, b: number) => number,
): void {
  if (list === undefined) return;
  for (const name in list) {
    const q = list[name];
    switch (name) {
      case 'cpu':
        r.milliCPU = combine(r.milliCPU, milli(q));
        break;
      case 'memory':
        r.memory = combine(r.memory, value(q));
        break;
      case 'ephemeral-storage':
        r.ephemeralStorage = combine(r.ephemeralStorage, value(q));
        break;
      case 'pods':
        r.allowedPodNumber = combine(r.allowedPodNumber, value(q));
        break;
      default: {
        r.scalar ??= new Map();
        r.scalar.set(name, combine(r.scalar.get(name) ?? 0, value(q)));
      }
    }
  }
}

const add = (a: number, b: number): number => a + b;

/** `into += r` (allowedPodNumber excluded). */
export function addResource(into: Resource, r: Resource, sign = 1): void {
  into.milliCPU += sign * r.milliCPU;
  into.memory += sign * r.memory;
  into.ephemeralStorage += sign * r.ephemeralStorage;
  if (r.scalar !== undefined) {
    into.scalar ??= new Map();
    for (const [k, v] of r.scalar) into.scalar.set(k, (into.scalar.get(k) ?? 0) + sign * v);
  }
}

/** A copy of `r`. */
export function cloneResource(r: Resource): Resource {
  return { ...r, scalar: r.scalar === undefined ? undefined : new Map(r.scalar) };
}

/** The allocatable resources of a node's status. */
export function allocatableOf(list: Record<string, string | number> | undefined): Resource {
  const r = newResource();
  accumulate(r, list, add);
  return r;
}

/** A Resource from one ResourceList by summing. */
export function sumInto(r: Resource, list: Record<string, string | number> | undefined): void {
  accumulate(r, list, add);
}
