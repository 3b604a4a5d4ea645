/**
 * Quota resource names and scopes, as upstream's core helper
 * (IsStandardQuotaResourceName, IsIntegerResourceName) and the pod
 * evaluator's scope support.
 */

const STANDARD_QUOTA = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);

const INTEGER = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** The scopes a quota may name. */
export const QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
];

/** True for the names a quota may limit without a domain (hugepages included). */
export const isStandardQuotaResource = (name: string): boolean =>
  STANDARD_QUOTA.has(name) || name.startsWith('requests.hugepages-');

/** True for object counts, whose quantities must be whole. */
export const isIntegerQuotaResource = (name: string): boolean => INTEGER.has(name) || name.startsWith('count/');

// upstream's podObjectCountQuotaResources and podComputeQuotaResources: what a pod scope may limit.
const POD_SCOPED = new Set(['pods', 'cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** True when a quota with `scope` may limit the standard `resource`, as IsResourceQuotaScopeValidForResource. */
export function scopeSupportsResource(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  return POD_SCOPED.has(resource);
}
