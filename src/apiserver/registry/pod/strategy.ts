/**
 * The pod strategy, like upstream's pkg/registry/core/pod/strategy.go: a
 * create starts Pending with its QoS class, node assignment happens only
 * through pods/binding, and deletion is graceful once the pod is on a node.
 */
import type { ResourceInfo } from '../../../api/index.js';
import type { Obj } from '../../object.js';
import { genericStrategy, type Strategy } from '../strategy.js';

/** Builds the pod strategy over the scheme's defaulting and validation. */
export function podStrategy(info: ResourceInfo): Strategy {
  return genericStrategy(info, {
    alwaysHasSpec: true,
    alwaysHasStatus: true,
    keepsStatusOnCreate: true,
    prepareForCreate(o) {
      const spec = (o.spec ?? {}) as Obj;
      o.status = { phase: 'Pending', qosClass: qosClass(spec) };
    },
    prepareForUpdate(o, old) {
      // Node assignment happens only through pods/binding.
      const oldNode = (old.spec as Obj | undefined)?.nodeName;
      if (oldNode !== undefined) (o.spec as Obj).nodeName = oldNode;
    },
    /** Upstream's CheckGracefulDelete: unscheduled and terminal pods go at once; others wait their grace period. */
    gracePeriod(o, requested) {
      const spec = (o.spec ?? {}) as Obj;
      const phase = (o.status as Obj | undefined)?.phase;
      if (spec.nodeName === undefined || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
      if (requested !== undefined) return requested;
      return (spec.terminationGracePeriodSeconds as number | undefined) ?? 30;
    },
  });
}

/** The pod's QoS class from its containers' requests and limits, like upstream's qos.GetPodQOS (simplified to cpu and memory). */
function qosClass(spec: Obj): string {
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
