/**
 * The registry: one folder per served resource, each exporting its
 * ResourceDefinition (strategy and subresources), listed here. Adding a kind
 * means a scheme entry in src/api/registry.ts, a folder here, and its line in
 * DEFINITIONS; the API server refuses to start with a scheme entry that has no folder.
 */
import type { ResourceInfo } from '../../api/index.js';
import { certificateSigningRequests } from './certificatesigningrequest/index.js';
import { configMaps } from './configmap/index.js';
import { controllerRevisions } from './controllerrevision/index.js';
import { customResourceDefinitions } from './customresourcedefinition/index.js';
import { limitRanges } from './limitrange/index.js';
import { resourceQuotas } from './resourcequota/index.js';
import { daemonSets } from './daemonset/index.js';
import { cronJobs } from './cronjob/index.js';
import { deployments } from './deployment/index.js';
import { endpoints } from './endpoints/index.js';
import { endpointSlices } from './endpointslice/index.js';
import { events } from './event/index.js';
import { flowSchemas } from './flowschema/index.js';
import { horizontalPodAutoscalers } from './horizontalpodautoscaler/index.js';
import { jobs } from './job/index.js';
import { networkPolicies } from './networkpolicy/index.js';
import { leases } from './lease/index.js';
import { namespaces } from './namespace/index.js';
import { nodes } from './node/index.js';
import { pods } from './pod/index.js';
import { podDisruptionBudgets } from './poddisruptionbudget/index.js';
import { podGroups } from './podgroup/index.js';
import { priorityClasses } from './priorityclass/index.js';
import { priorityLevelConfigurations } from './prioritylevelconfiguration/index.js';
import { clusterRoles } from './clusterrole/index.js';
import { clusterRoleBindings } from './clusterrolebinding/index.js';
import { roles } from './role/index.js';
import { roleBindings } from './rolebinding/index.js';
import { replicaSets } from './replicaset/index.js';
import { defaultTable, type ResourcePrinter } from './printers/index.js';
import { replicationControllers } from './replicationcontroller/index.js';
import type { ResourceDefinition } from './resource.js';
import { secrets } from './secret/index.js';
import { serviceAccounts } from './serviceaccount/index.js';
import { services } from './service/index.js';
import { statefulSets } from './statefulset/index.js';
import { persistentVolumes } from './persistentvolume/index.js';
import { persistentVolumeClaims } from './persistentvolumeclaim/index.js';
import { storageClasses } from './storageclass/index.js';

export type { ResourceDefinition, SubresourceHandler } from './resource.js';
export { printTable } from './printers/index.js';
export { serviceAllocations } from './service/index.js';

/** Every resource folder. */
export const DEFINITIONS: readonly ResourceDefinition[] = [
  namespaces,
  nodes,
  pods,
  services,
  endpoints,
  events,
  configMaps,
  secrets,
  serviceAccounts,
  leases,
  endpointSlices,
  deployments,
  replicaSets,
  statefulSets,
  daemonSets,
  controllerRevisions,
  replicationControllers,
  jobs,
  cronJobs,
  horizontalPodAutoscalers,
  networkPolicies,
  priorityClasses,
  podDisruptionBudgets,
  podGroups,
  customResourceDefinitions,
  resourceQuotas,
  limitRanges,
  roles,
  clusterRoles,
  roleBindings,
  clusterRoleBindings,
  certificateSigningRequests,
  flowSchemas,
  priorityLevelConfigurations,
  persistentVolumes,
  persistentVolumeClaims,
  storageClasses,
];

const byGroupResource = new Map(DEFINITIONS.map((d) => [`${d.group}/${d.resource}`, d]));

/** The definition of a scheme entry; throws when the resource has no folder. */
export function definitionFor(info: Pick<ResourceInfo, 'group' | 'resource'>): ResourceDefinition {
  const d = byGroupResource.get(`${info.group}/${info.resource}`);
  if (d === undefined)
    throw new Error(`no registry folder serves ${info.resource}${info.group === '' ? '' : `.${info.group}`}`);
  return d;
}

/** The Table columns of a resource: its folder's, else Name and Age (a resource with no folder included). */
export function tableFor(info: Pick<ResourceInfo, 'group' | 'resource'>): ResourcePrinter {
  return byGroupResource.get(`${info.group}/${info.resource}`)?.table ?? defaultTable;
}
