/**
 * Two indexes that let the endpoint controllers match pods and Services by
 * label without scanning a namespace: pods filed under each of their label
 * pairs, Services under each pair of their selector. Both file a pair as
 * `namespace/key=value` (a label key holds no `=`, a namespace no `/`).
 * Upstream matches by listing the namespace; the results are the same.
 */
import type { SharedInformer } from '../../client/index.js';
import { SharedInformerFactory } from '../../client/index.js';
import type { Pod, Service } from '../../api/index.js';

/** The pod index by label pair. */
export const POD_LABEL_INDEX = 'endpointutil.podLabel';
/** The Service index by selector pair. */
export const SERVICE_SELECTOR_INDEX = 'endpointutil.serviceSelector';

/** How both indexes spell one label pair of a namespace. */
export function labelPair(namespace: string, key: string, value: string): string {
  return `${namespace}/${key}=${value}`;
}

/** Files a pod under each of its label pairs. */
export function podLabelIndexFunc(pod: Pod): string[] {
  const labels = pod.metadata?.labels;
  if (labels === undefined || labels === null) return [];
  const ns = pod.metadata?.namespace ?? '';
  return Object.entries(labels).map(([k, v]) => labelPair(ns, k, v));
}

/** Files a Service under each pair of its selector; a Service without one selects nothing and is not filed. */
export function serviceSelectorIndexFunc(svc: Service): string[] {
  const sel = svc.spec?.selector;
  if (sel === undefined || sel === null) return [];
  const ns = svc.metadata?.namespace ?? '';
  return Object.entries(sel).map(([k, v]) => labelPair(ns, k, v));
}

/** Adds both indexes to the shared pod and Service informers unless another controller already did. */
export function ensureLabelIndexes(pods: SharedInformer<Pod>, services: SharedInformer<Service>): void {
  SharedInformerFactory.ensureIndex(pods, POD_LABEL_INDEX, podLabelIndexFunc);
  SharedInformerFactory.ensureIndex(services, SERVICE_SELECTOR_INDEX, serviceSelectorIndexFunc);
}
