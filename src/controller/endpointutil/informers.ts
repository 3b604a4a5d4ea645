/**
 * The Service and pod wiring both endpoint controllers share: a Service
 * change queues its key; a pod change queues, after the batch period, the
 * Services that select the pod now or selected it before.
 */
import type { Pod, Service } from '../../api/index.js';
import { RESOURCES, unwrapDeleted, type Indexer, type Lister, type SharedInformerFactory } from '../../client/index.js';
import { enqueueOnChange } from '../controllerutil/index.js';
import { ensureLabelIndexes } from './label_index.js';
import { servicesToSyncForPod } from './service.js';

/** What an endpoint controller reads of Services and pods. */
export interface ServicePodInformers {
  serviceLister: Lister<Service>;
  serviceIndexer: Indexer<Service>;
  podIndexer: Indexer<Pod>;
}

/** Registers the Service and pod handlers on the shared informers (with their label indexes) and returns the readers. */
export function watchServicesAndPods(
  informers: SharedInformerFactory,
  queue: { add(key: string): void; addAfter(key: string, delayMs: number): void },
  podBatchPeriodMs: number,
): ServicePodInformers {
  const services = informers.informerFor<Service>(RESOURCES.services);
  const pods = informers.informerFor<Pod>(RESOURCES.pods);
  ensureLabelIndexes(pods, services);
  const serviceIndexer = services.indexer;
  const queuePod = (pod: Pod, old: Pod | undefined): void => {
    for (const key of servicesToSyncForPod(serviceIndexer, pod, old)) queue.addAfter(key, podBatchPeriodMs);
  };
  enqueueOnChange(services, queue);
  pods.addEventHandler({
    onAdd: (p) => queuePod(p, undefined),
    onUpdate: (o, p) => queuePod(p, o),
    onDelete: (p) => queuePod(unwrapDeleted(p), undefined),
  });
  return { serviceLister: services.lister(), serviceIndexer, podIndexer: pods.indexer };
}
