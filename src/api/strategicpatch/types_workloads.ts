// Patch metadata for apps/v1, batch/v1, discovery/v1, coordination/v1 and policy/v1 types, and the
// root type of each kind, transcribed from the struct tags and list markers in k8s.io/api.
import { ATOMIC_LIST, keyedList } from './types_core.js';
import type { TypeMeta } from './schema.js';

const template = { type: 'PodTemplateSpec', alwaysSerialized: true } as const;
const selector = { type: 'LabelSelector' } as const;

/** apps, batch, discovery, coordination and policy types keyed by a unique type name. */
export const WORKLOAD_TYPES: Record<string, TypeMeta> = {
  DeploymentSpec: {
    fields: {
      selector,
      template,
      // retainKeys lets `kubectl apply` drop rollingUpdate when switching to Recreate.
      strategy: { type: 'DeploymentStrategy', patchStrategy: 'retainKeys', alwaysSerialized: true },
    },
  },
  DeploymentStatus: { fields: { conditions: keyedList('DeploymentCondition', 'type') } },
  ReplicaSetSpec: { fields: { selector, template } },
  ReplicaSetStatus: { fields: { conditions: keyedList('ReplicaSetCondition', 'type') } },
  StatefulSetSpec: { fields: { selector, template, volumeClaimTemplates: ATOMIC_LIST } },
  StatefulSetStatus: { fields: { conditions: keyedList('StatefulSetCondition', 'type') } },
  DaemonSetSpec: { fields: { selector, template } },
  DaemonSetStatus: { fields: { conditions: keyedList('DaemonSetCondition', 'type') } },

  JobSpec: { fields: { selector, template, podFailurePolicy: { type: 'PodFailurePolicy' } } },
  PodFailurePolicy: { fields: { rules: ATOMIC_LIST } },
  // SMP merges Job conditions by type, but apply treats them as atomic (+listType=atomic).
  JobStatus: {
    fields: {
      conditions: { type: 'JobCondition', patchStrategy: 'merge', patchMergeKey: 'type', listType: 'atomic' },
      uncountedTerminatedPods: { type: 'UncountedTerminatedPods' },
    },
  },
  UncountedTerminatedPods: { fields: { succeeded: { listType: 'set' }, failed: { listType: 'set' } } },
  JobTemplateSpec: {
    fields: {
      metadata: { type: 'ObjectMeta', alwaysSerialized: true },
      spec: { type: 'JobSpec', alwaysSerialized: true },
    },
  },
  CronJobSpec: { fields: { jobTemplate: { type: 'JobTemplateSpec', alwaysSerialized: true } } },
  CronJobStatus: { fields: { active: ATOMIC_LIST } },

  PodDisruptionBudgetSpec: { fields: { selector: { type: 'LabelSelector', patchStrategy: 'replace' } } },
  PodDisruptionBudgetStatus: { fields: { conditions: keyedList('Condition', 'type') } },
};

/** Root object type: ObjectMeta plus the given spec/status types (non-pointer, like upstream). */
function root(spec?: string, status?: string, extra: TypeMeta['fields'] = {}): TypeMeta {
  const fields: Record<string, TypeMeta['fields'][string]> = {
    metadata: { type: 'ObjectMeta', alwaysSerialized: true },
    ...extra,
  };
  if (spec) fields.spec = { type: spec, alwaysSerialized: true };
  if (status) fields.status = { type: status, alwaysSerialized: true };
  return { fields };
}

/** Root types of each kind, keyed by `<apiVersion>/<Kind>` (GVK). */
export const KIND_ROOT_TYPES: Record<string, TypeMeta> = {
  'v1/Pod': root('PodSpec', 'PodStatus'),
  'v1/PodTemplate': root(undefined, undefined, { template: { type: 'PodTemplateSpec', alwaysSerialized: true } }),
  'v1/Node': root('NodeSpec', 'NodeStatus'),
  'v1/Service': root('ServiceSpec', 'ServiceStatus'),
  'v1/Endpoints': root(undefined, undefined, { subsets: ATOMIC_LIST }),
  'v1/Namespace': root('NamespaceSpec', 'NamespaceStatus'),
  'v1/ServiceAccount': root(undefined, undefined, {
    secrets: keyedList('ObjectReference', 'name'),
    imagePullSecrets: ATOMIC_LIST,
  }),
  'v1/ConfigMap': root(),
  'v1/Secret': root(),
  'v1/Event': root(),
  'v1/ReplicationController': root('ReplicationControllerSpec', 'ReplicationControllerStatus'),
  'v1/PersistentVolumeClaim': root('PersistentVolumeClaimSpec', 'PersistentVolumeClaimStatus'),
  'v1/PersistentVolume': root('PersistentVolumeSpec'),
  'v1/ComponentStatus': root(undefined, undefined, { conditions: keyedList('ComponentCondition', 'type') }),
  'apps/v1/Deployment': root('DeploymentSpec', 'DeploymentStatus'),
  'apps/v1/ReplicaSet': root('ReplicaSetSpec', 'ReplicaSetStatus'),
  'apps/v1/StatefulSet': root('StatefulSetSpec', 'StatefulSetStatus'),
  'apps/v1/DaemonSet': root('DaemonSetSpec', 'DaemonSetStatus'),
  'apps/v1/ControllerRevision': root(),
  'batch/v1/Job': root('JobSpec', 'JobStatus'),
  'batch/v1/CronJob': root('CronJobSpec', 'CronJobStatus'),
  'discovery.k8s.io/v1/EndpointSlice': root(undefined, undefined, {
    endpoints: { ...ATOMIC_LIST, alwaysSerialized: true },
    ports: ATOMIC_LIST,
  }),
  'coordination.k8s.io/v1/Lease': root('LeaseSpec'),
  'policy/v1/PodDisruptionBudget': root('PodDisruptionBudgetSpec', 'PodDisruptionBudgetStatus'),
  'events.k8s.io/v1/Event': root(),
};
