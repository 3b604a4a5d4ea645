/**
 * Validation of a pods/resize update, like upstream's ValidatePodResize (1.33, InPlacePodVerticalScaling): the
 * strategy has already carried over everything but the containers' resources and resizePolicy, so what is left to
 * check is which resources may change and that the pod's QoS class stays.
 */
import { milliValue } from '../quantity.js';
import { podQOSClass } from '../qos.js';
import { isObject, type KubeObject } from '../types.js';
import { arr, type Obj } from './common.js';
import { child, forbidden, index, type ErrorList } from './field.js';
import { validateObjectMetaUpdate } from './objectmeta.js';
import { validateResourceRequirements } from './resources.js';
import { semanticEqual } from './semantic.js';

const RESIZABLE = new Set(['cpu', 'memory']);

const list = (res: unknown, which: 'requests' | 'limits'): Record<string, unknown> => {
  const l = isObject(res) ? res[which] : undefined;
  return isObject(l) ? l : {};
};

/** The resource names whose request or limit differs between two containers' resources. */
function changedResources(res: unknown, old: unknown): string[] {
  const out = new Set<string>();
  for (const which of ['requests', 'limits'] as const) {
    const a = list(res, which);
    const b = list(old, which);
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (!semanticEqual(a[k], b[k])) out.add(k);
  }
  return [...out];
}

/** Whether a container restarts to apply a memory change (resizePolicy memory: RestartContainer). */
const restartsForMemory = (c: Obj): boolean =>
  arr(c.resizePolicy).some((p) => p.resourceName === 'memory' && p.restartPolicy === 'RestartContainer');

/** Field errors of a pods/resize update of `old` to `pod`. */
export function validatePodResize(pod: KubeObject, old: KubeObject): ErrorList {
  const errs = validateObjectMetaUpdate(pod.metadata, old.metadata);
  const spec = (isObject(pod.spec) ? pod.spec : {}) as Obj;
  const oldSpec = (isObject(old.spec) ? old.spec : {}) as Obj;
  for (const f of ['containers', 'initContainers'] as const) {
    const olds = arr(oldSpec[f]);
    arr(spec[f]).forEach((c, i) => {
      const path = child(index(child('spec', f), i), 'resources');
      const was = olds[i] ?? {};
      const changed = changedResources(c.resources, was.resources);
      if (changed.length === 0) return;
      // Only sidecars (restartable init containers) run alongside the app, so only they may be resized.
      if (f === 'initContainers' && c.restartPolicy !== 'Always') {
        errs.push(forbidden(path, 'resources for non-sidecar init containers are immutable'));
        return;
      }
      if (changed.some((k) => !RESIZABLE.has(k)))
        errs.push(forbidden(path, 'only cpu and memory resources are mutable'));
      const memNow = list(c.resources, 'limits').memory;
      const memWas = list(was.resources, 'limits').memory;
      if (
        memNow !== undefined &&
        memWas !== undefined &&
        milliValue(memNow as string) < milliValue(memWas as string) &&
        !restartsForMemory(c)
      )
        errs.push(
          forbidden(
            child(path, 'limits', 'memory'),
            'memory limits cannot be decreased unless resizePolicy is RestartContainer',
          ),
        );
      errs.push(...validateResourceRequirements(c.resources, path));
    });
  }
  const oldStatus = (isObject(old.status) ? old.status : {}) as Obj;
  const oldQos = (oldStatus.qosClass as string | undefined) ?? podQOSClass(oldSpec);
  if (podQOSClass(spec) !== oldQos)
    errs.push(forbidden('spec', 'Pod QOS Class may not change as a result of resizing'));
  return errs;
}
