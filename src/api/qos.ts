/** A pod's QoS class, like upstream's qos.GetPodQOS (simplified to cpu and memory). */
import type { Obj } from './validation/common.js';

/** Guaranteed when every container limits cpu and memory with equal (or no) requests, BestEffort when none sets either, else Burstable. */
export function podQOSClass(spec: Obj): string {
  const containers = [
    ...((spec.containers as Obj[] | undefined) ?? []),
    ...((spec.initContainers as Obj[] | undefined) ?? []),
  ];
  let anySet = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = (c.resources ?? {}) as Obj;
    const req = (res.requests ?? {}) as Record<string, string>;
    const lim = (res.limits ?? {}) as Record<string, string>;
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) anySet = true;
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
