/** Garbage collector settings, with upstream's defaults. */
import { RESOURCES, type GroupVersionResource } from '../../client/index.js';

/** GarbageCollectorControllerConfiguration. */
export interface GarbageCollectorOptions {
  /** --concurrent-gc-syncs: workers of each of the delete and orphan queues. */
  concurrentGCSyncs: number;
  /** --enable-garbage-collector: off leaves ownerReferences unenforced. */
  enableGarbageCollector: boolean;
}

/** Upstream's defaults: 20 workers, enabled. */
export const DEFAULT_GARBAGE_COLLECTOR_OPTIONS: GarbageCollectorOptions = {
  concurrentGCSyncs: 20,
  enableGarbageCollector: true,
};

/**
 * The resources whose objects the collector watches (its monitors). Upstream
 * watches every deletable resource through metadata informers; kscale watches
 * the ones that carry ownerReferences in practice: workloads, their pods, the
 * claims StatefulSets make, and Services with their endpoints.
 */
export const MONITORED_RESOURCES: readonly GroupVersionResource[] = [
  RESOURCES.pods,
  RESOURCES.persistentvolumeclaims,
  RESOURCES.replicasets,
  RESOURCES.deployments,
  RESOURCES.daemonsets,
  RESOURCES.statefulsets,
  RESOURCES.controllerrevisions,
  RESOURCES.jobs,
  RESOURCES.services,
  RESOURCES.endpointslices,
  RESOURCES.endpoints,
];

/** kind -> resource, for reading owners of any known kind (the collector's RESTMapper). */
export const KIND_TO_RESOURCE: Readonly<Record<string, GroupVersionResource>> = {
  Pod: RESOURCES.pods,
  PersistentVolumeClaim: RESOURCES.persistentvolumeclaims,
  Node: RESOURCES.nodes,
  Namespace: RESOURCES.namespaces,
  Service: RESOURCES.services,
  Endpoints: RESOURCES.endpoints,
  ConfigMap: RESOURCES.configmaps,
  Secret: RESOURCES.secrets,
  ServiceAccount: RESOURCES.serviceaccounts,
  Lease: RESOURCES.leases,
  EndpointSlice: RESOURCES.endpointslices,
  Deployment: RESOURCES.deployments,
  ReplicaSet: RESOURCES.replicasets,
  StatefulSet: RESOURCES.statefulsets,
  DaemonSet: RESOURCES.daemonsets,
  ControllerRevision: RESOURCES.controllerrevisions,
  Job: RESOURCES.jobs,
  PodDisruptionBudget: RESOURCES.poddisruptionbudgets,
};

/** The kind of each monitored resource. */
export const RESOURCE_TO_KIND: Readonly<Record<string, { apiVersion: string; kind: string }>> = Object.fromEntries(
  Object.entries(KIND_TO_RESOURCE).map(([kind, gvr]) => [
    gvr.resource,
    { apiVersion: gvr.group === '' ? gvr.version : `${gvr.group}/${gvr.version}`, kind },
  ]),
);
