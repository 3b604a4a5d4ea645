/**
 * Validation entry points: per-resource create, update and status-update
 * validators, and a helper that turns errors into the 422 StatusError.
 */
import type { ResourceInfo } from '../registry.js';
import type { KubeObject } from '../types.js';
import {
  selectorImmutable,
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDeployment,
  validateDeploymentUpdate,
  validateReplicaSet,
  validateReplicaSetUpdate,
  validateReplicaStatus,
  validateReplicationController,
} from './apps.js';
import { validateDaemonSet, validateDaemonSetStatus } from './daemonset.js';
import { validateHorizontalPodAutoscaler } from './autoscaling.js';
import { validateNetworkPolicy } from './networking.js';
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from './batch.js';
import {
  validateConfigMap,
  validateEndpoints,
  validateEvent,
  validateImmutableDataUpdate,
  validateNamespace,
  validateNode,
  validateSecret,
  validateService,
  validateServiceAccount,
  validateServiceUpdate,
} from './core.js';
import { toInvalidError, type ErrorList } from './field.js';
import { validateFlowSchema, validatePriorityLevelConfiguration } from './flowcontrol.js';
import { validateObjectMetaUpdate } from './objectmeta.js';
import {
  validateEndpointSlice,
  validateEndpointSliceUpdate,
  validateLease,
  validatePodDisruptionBudget,
  validatePriorityClass,
  validatePriorityClassUpdate,
  validatePodGroup,
} from './other.js';
import { validatePod, validatePodStatusUpdate, validatePodUpdate } from './pod.js';
import { validateLimitRange, validateResourceQuota, validateResourceQuotaStatus } from './quota.js';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from './rbac.js';
import { validateStatefulSet, validateStatefulSetStatus, validateStatefulSetUpdate } from './statefulset.js';
import {
  validateCertificateSigningRequest,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
} from './certificates.js';
import {
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
} from './storage.js';

type Create = (o: KubeObject) => ErrorList;
type Update = (o: KubeObject, old: KubeObject) => ErrorList;

// `update` entries are complete (they include the metadata update checks); `extraUpdate` adds to create + metadata checks.
const VALIDATORS: Record<string, { create: Create; update?: Update; extraUpdate?: Update; status?: Update }> = {
  pods: { create: validatePod, update: validatePodUpdate, status: validatePodStatusUpdate },
  services: { create: validateService, extraUpdate: validateServiceUpdate },
  nodes: { create: validateNode },
  namespaces: { create: validateNamespace },
  configmaps: {
    create: validateConfigMap,
    extraUpdate: (c, o) => validateImmutableDataUpdate(c, o, ['data', 'binaryData']),
  },
  secrets: {
    create: validateSecret,
    extraUpdate: (s, o) => validateImmutableDataUpdate({ ...s, kind: 'Secret' }, o, ['data']),
  },
  serviceaccounts: { create: validateServiceAccount },
  events: { create: validateEvent },
  endpoints: { create: validateEndpoints },
  leases: { create: validateLease },
  endpointslices: { create: validateEndpointSlice, extraUpdate: validateEndpointSliceUpdate },
  deployments: { create: validateDeployment, update: validateDeploymentUpdate, status: validateReplicaStatus },
  replicasets: { create: validateReplicaSet, update: validateReplicaSetUpdate, status: validateReplicaStatus },
  statefulsets: { create: validateStatefulSet, update: validateStatefulSetUpdate, status: validateStatefulSetStatus },
  daemonsets: { create: validateDaemonSet, extraUpdate: selectorImmutable, status: validateDaemonSetStatus },
  controllerrevisions: { create: validateControllerRevision, extraUpdate: validateControllerRevisionUpdate },
  replicationcontrollers: { create: validateReplicationController, status: validateReplicaStatus },
  jobs: { create: validateJob, update: validateJobUpdate },
  cronjobs: { create: validateCronJob, update: validateCronJobUpdate },
  horizontalpodautoscalers: { create: validateHorizontalPodAutoscaler },
  networkpolicies: { create: validateNetworkPolicy },
  priorityclasses: { create: validatePriorityClass, extraUpdate: validatePriorityClassUpdate },
  poddisruptionbudgets: { create: validatePodDisruptionBudget },
  podgroups: { create: validatePodGroup },
  resourcequotas: { create: validateResourceQuota, status: (o) => validateResourceQuotaStatus(o) },
  limitranges: { create: validateLimitRange },
  roles: { create: validateRole },
  clusterroles: { create: validateClusterRole },
  rolebindings: { create: validateRoleBinding, update: validateRoleBindingUpdate },
  clusterrolebindings: { create: validateClusterRoleBinding, update: validateClusterRoleBindingUpdate },
  certificatesigningrequests: {
    create: validateCertificateSigningRequest,
    update: validateCertificateSigningRequestUpdate,
    status: validateCertificateSigningRequestStatusUpdate,
  },
  flowschemas: { create: validateFlowSchema },
  prioritylevelconfigurations: { create: validatePriorityLevelConfiguration },
  persistentvolumes: { create: validatePersistentVolume, extraUpdate: validatePersistentVolumeUpdate },
  persistentvolumeclaims: { create: validatePersistentVolumeClaim, extraUpdate: validatePersistentVolumeClaimUpdate },
  storageclasses: { create: validateStorageClass, extraUpdate: validateStorageClassUpdate },
};

const resourceName = (r: ResourceInfo | string): string => (typeof r === 'string' ? r : r.resource);

/** Field errors for creating `obj` as `resource` (a plural like "pods" or its ResourceInfo); [] when valid. */
export function validateCreate(resource: ResourceInfo | string, obj: KubeObject): ErrorList {
  return VALIDATORS[resourceName(resource)]?.create(obj) ?? [];
}

/** Field errors for replacing `old` with `obj`, including the immutable-field rules. */
export function validateUpdate(resource: ResourceInfo | string, obj: KubeObject, old: KubeObject): ErrorList {
  const v = VALIDATORS[resourceName(resource)];
  if (!v) return validateObjectMetaUpdate(obj.metadata, old.metadata);
  if (v.update) return v.update(obj, old);
  // Create rules re-run on update, but their metadata part is replaced by the update rules.
  const errs = v
    .create(obj)
    .filter((e) => !e.field.startsWith('metadata.name') && !e.field.startsWith('metadata.generateName'));
  errs.push(...validateObjectMetaUpdate(obj.metadata, old.metadata));
  if (v.extraUpdate) errs.push(...v.extraUpdate(obj, old));
  return errs;
}

/** Field errors for a status-subresource update: identity fields plus the resource's status rules. */
export function validateStatusUpdate(resource: ResourceInfo | string, obj: KubeObject, old: KubeObject): ErrorList {
  const v = VALIDATORS[resourceName(resource)];
  if (v?.status) {
    const errs = v.status(obj, old);
    return v.status === validatePodStatusUpdate
      ? errs
      : [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...errs];
  }
  return validateObjectMetaUpdate(obj.metadata, old.metadata);
}

/** Throws the 422 `Kind "name" is invalid: ...` StatusError when `errs` is not empty. */
export function throwIfInvalid(info: Pick<ResourceInfo, 'group' | 'kind'>, name: string, errs: ErrorList): void {
  if (errs.length) throw toInvalidError({ group: info.group, kind: info.kind }, name, errs);
}

export * from './field.js';
export { validateObjectMeta, validateObjectMetaUpdate, validateLabels, validateAnnotations } from './objectmeta.js';
export { validateLabelSelector, validateIntOrPercent, scaledIntOrPercent } from './common.js';
export { validatePodSpec, validatePodTemplateSpec, validateTolerations } from './pod.js';
export { validatePodResize } from './pod_resize.js';
export { validateResourceRequirements } from './resources.js';
export { semanticEqual } from './semantic.js';
export { ACCESS_MODES } from './storage.js';
export { HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASSES } from './other.js';
