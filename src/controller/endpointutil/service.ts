/**
 * Service helpers shared by the endpoint controllers: which Services select
 * a pod (upstream's GetPodServiceMemberships), and the keys to queue for a pod change.
 */
import { metaNamespaceKeyFunc, type Indexer } from '../../client/index.js';
import { labelPair, POD_LABEL_INDEX, SERVICE_SELECTOR_INDEX } from './label_index.js';
import { podEndpointsChanged } from './pod.js';
import { matchesLabelSet, type Pod, type Service } from '../../api/index.js';

/** The Service's selector, or undefined when it selects no pods (nil or empty, as Go decodes an omitted map). */
export function serviceSelector(svc: Service): Record<string, string> | undefined {
  const sel = svc.spec?.selector;
  return sel === undefined || sel === null || Object.keys(sel).length === 0 ? undefined : sel;
}

/**
 * Keys of the Services in the pod's namespace whose selector matches the pod's
 * labels (GetPodServiceMemberships). Upstream lists the namespace's Services
 * and matches each; here only those whose selector names one of the pod's
 * label pairs are looked at (SERVICE_SELECTOR_INDEX), with the same result.
 */
export function podServiceMemberships(services: Indexer<Service>, pod: Pod): Set<string> {
  const out = new Set<string>();
  const ns = pod.metadata?.namespace ?? '';
  const labels = pod.metadata?.labels;
  if (labels === undefined || labels === null) return out;
  for (const [k, v] of Object.entries(labels)) {
    for (const svc of services.byIndex(SERVICE_SELECTOR_INDEX, labelPair(ns, k, v))) {
      const key = metaNamespaceKeyFunc(svc);
      if (out.has(key)) continue;
      const sel = serviceSelector(svc);
      if (sel !== undefined && matchesLabelSet(sel, labels)) out.add(key);
    }
  }
  return out;
}

/**
 * The Services to sync for a pod event: those selecting the pod, plus those
 * that selected its old labels; none when an update changed nothing an
 * endpoint shows (upstream's podEndpointsChanged filter).
 */
export function servicesToSyncForPod(services: Indexer<Service>, pod: Pod, old: Pod | undefined): Set<string> {
  if (old === undefined) return podServiceMemberships(services, pod);
  const { labelsChanged, endpointChanged } = podEndpointsChanged(old, pod);
  if (!labelsChanged && !endpointChanged) return new Set();
  const keys = podServiceMemberships(services, pod);
  if (labelsChanged) for (const k of podServiceMemberships(services, old)) keys.add(k);
  return keys;
}

/**
 * The pods a Service selects, from the pod cache. Upstream lists the
 * namespace's pods with the selector; here the candidates are the pods
 * carrying the selector's rarest label pair (POD_LABEL_INDEX), so a sync costs
 * the Service's own pods, not the namespace's.
 */
export function selectedPods(pods: Indexer<Pod>, svc: Service, selector: Record<string, string>): Pod[] {
  const ns = svc.metadata?.namespace ?? '';
  let rarest: string | undefined;
  let fewest = Infinity;
  for (const [k, v] of Object.entries(selector)) {
    const pair = labelPair(ns, k, v);
    const n = pods.countByIndex(POD_LABEL_INDEX, pair);
    if (n < fewest) [rarest, fewest] = [pair, n];
  }
  if (rarest === undefined || fewest === 0) return [];
  return pods.byIndex(POD_LABEL_INDEX, rarest).filter((p) => matchesLabelSet(selector, p.metadata?.labels));
}
