/** A pod's vertex in the Node authorizer's graph: its node, ServiceAccount and the objects it references. */
import { podReferencedNames } from '../../../api/index.js';
import type { Obj } from '../../object.js';
import type { PodRefs } from './graph.js';

/** The annotation that marks a kubelet's mirror pod (v1.MirrorPodAnnotationKey). */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A pod's references, or undefined while it is not bound to a node (upstream adds only bound pods). */
export function podRefs(pod: Obj): PodRefs | undefined {
  const spec = obj(pod.spec) ?? {};
  const nodeName = str(spec.nodeName);
  if (nodeName === '') return undefined;
  const m = obj(pod.metadata) ?? {};
  const annotations = obj(m.annotations) ?? {};
  return {
    namespace: str(m.namespace),
    name: str(m.name),
    nodeName,
    mirror: MIRROR_POD_ANNOTATION in annotations,
    serviceAccountName: str(spec.serviceAccountName),
    ...podReferencedNames(pod),
  };
}
