/**
 * The pod strategy, like upstream's pkg/registry/core/pod/strategy.go: a
 * create starts Pending with its QoS class, node assignment happens only
 * through pods/binding, a pods/resize write changes only the containers'
 * resources (podResizeStrategy), and deletion is graceful once the pod is on a node.
 */
import { podQOSClass, validation, type KubeObject, type ResourceInfo } from '../../../api/index.js';
import { deepCopy, type Obj } from '../../object.js';
import { genericStrategy, type Strategy } from '../strategy.js';

/**
 * The old pod with only what a resize may change taken from the new one, like upstream's dropNonResizeUpdates: each
 * container's (and sidecar's) resources and resizePolicy, matched by name; any other change in the request is dropped.
 */
export function dropNonResizeUpdates(pod: Obj, old: Obj): void {
  const spec = deepCopy((old.spec ?? {}) as Obj);
  const next = (pod.spec ?? {}) as Obj;
  for (const f of ['containers', 'initContainers']) {
    const byName = new Map(((next[f] as Obj[] | undefined) ?? []).map((c) => [c.name, c]));
    for (const c of (spec[f] as Obj[] | undefined) ?? []) {
      const n = byName.get(c.name);
      if (n === undefined) continue;
      for (const k of ['resources', 'resizePolicy']) {
        if (n[k] === undefined) delete c[k];
        else c[k] = n[k];
      }
    }
  }
  pod.spec = spec;
  const m = (pod.metadata ??= {}) as Obj;
  const om = (old.metadata ?? {}) as Obj;
  for (const k of ['labels', 'annotations', 'ownerReferences', 'finalizers']) {
    if (om[k] === undefined) delete m[k];
    else m[k] = om[k];
  }
}

/** Builds the pod strategy over the scheme's defaulting and validation. */
export function podStrategy(info: ResourceInfo): Strategy {
  return genericStrategy(info, {
    alwaysHasSpec: true,
    alwaysHasStatus: true,
    keepsStatusOnCreate: true,
    prepareForCreate(o) {
      const spec = (o.spec ?? {}) as Obj;
      o.status = { phase: 'Pending', qosClass: podQOSClass(spec) };
    },
    prepareForUpdate(o, old, ctx) {
      if (ctx.subresource === 'resize') return dropNonResizeUpdates(o, old);
      // Node assignment happens only through pods/binding.
      const oldNode = (old.spec as Obj | undefined)?.nodeName;
      if (oldNode !== undefined) (o.spec as Obj).nodeName = oldNode;
    },
    validateResize: (o, old) => validation.validatePodResize(o as KubeObject, old as KubeObject),
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
