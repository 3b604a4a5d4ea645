// Patch metadata for meta/v1 and core/v1 types, transcribed from the patchStrategy/patchMergeKey
// struct tags and +listType/+listMapKey/+mapType/+structType markers in k8s.io/api core/v1/types.go
// and k8s.io/apimachinery meta/v1/types.go. Fields not listed merge as maps / replace as lists
// (strategic merge) and are granular maps / atomic lists (server-side apply).
import type { FieldMeta, TypeMeta } from './schema.js';

/** A merge-keyed list: patchStrategy=merge, patchMergeKey=key, listType=map keyed by listMapKeys. */
export function keyedList(
  type: string,
  key: string,
  listMapKeys: readonly string[] = [key],
  retainKeys = false,
): FieldMeta {
  return {
    type,
    patchStrategy: retainKeys ? 'merge,retainKeys' : 'merge',
    patchMergeKey: key,
    listType: 'map',
    listMapKeys,
  };
}

/** A primitive list with patchStrategy=merge (unioned by strategic merge, a set for apply). */
export const MERGED_SET: FieldMeta = { patchStrategy: 'merge', listType: 'set' };
/** A list replaced whole by both strategic merge and apply. */
export const ATOMIC_LIST: FieldMeta = { listType: 'atomic' };
/** A map[string]string owned whole by apply (e.g. Service.spec.selector). */
export const ATOMIC_MAP: FieldMeta = { mapType: 'atomic' };

/** Meta/v1 and core/v1 types keyed by upstream's Go type name. */
export const CORE_TYPES: Record<string, TypeMeta> = {
  ObjectMeta: {
    fields: {
      ownerReferences: keyedList('OwnerReference', 'uid'),
      finalizers: MERGED_SET,
      managedFields: ATOMIC_LIST,
    },
  },
  OwnerReference: { fields: {}, structType: 'atomic' },
  LabelSelector: { fields: { matchExpressions: ATOMIC_LIST }, structType: 'atomic' },
  ObjectReference: { fields: {}, structType: 'atomic' },
  LocalObjectReference: { fields: {}, structType: 'atomic' },
  Condition: { fields: {} },

  PodTemplateSpec: {
    fields: {
      metadata: { type: 'ObjectMeta', alwaysSerialized: true },
      spec: { type: 'PodSpec', alwaysSerialized: true },
    },
  },
  PodSpec: {
    fields: {
      volumes: keyedList('Volume', 'name', ['name'], true),
      initContainers: keyedList('Container', 'name'),
      containers: { ...keyedList('Container', 'name'), alwaysSerialized: true },
      ephemeralContainers: keyedList('Container', 'name'),
      imagePullSecrets: keyedList('LocalObjectReference', 'name'),
      hostAliases: keyedList('HostAlias', 'ip'),
      topologySpreadConstraints: keyedList('TopologySpreadConstraint', 'topologyKey', [
        'topologyKey',
        'whenUnsatisfiable',
      ]),
      schedulingGates: keyedList('PodSchedulingGate', 'name'),
      resourceClaims: keyedList('PodResourceClaim', 'name', ['name'], true),
      evictionResponders: keyedList('EvictionResponder', 'name'),
      nodeSelector: ATOMIC_MAP,
      tolerations: ATOMIC_LIST,
      readinessGates: ATOMIC_LIST,
      affinity: { type: 'Affinity' },
    },
  },
  EvictionResponder: { fields: {}, structType: 'atomic' },
  Affinity: { fields: { nodeAffinity: { type: 'NodeAffinity' } } },
  NodeAffinity: { fields: { requiredDuringSchedulingIgnoredDuringExecution: { type: 'NodeSelector' } } },
  NodeSelector: { fields: { nodeSelectorTerms: ATOMIC_LIST }, structType: 'atomic' },
  Container: {
    fields: {
      // protocol carries +default="TCP", so apply keys an item without it as protocol TCP.
      ports: {
        ...keyedList('ContainerPort', 'containerPort', ['containerPort', 'protocol']),
        listMapKeyDefaults: { protocol: 'TCP' },
      },
      env: keyedList('EnvVar', 'name'),
      volumeMounts: keyedList('VolumeMount', 'mountPath'),
      volumeDevices: keyedList('VolumeDevice', 'devicePath'),
      resources: { type: 'ResourceRequirements', alwaysSerialized: true },
      command: ATOMIC_LIST,
      args: ATOMIC_LIST,
      envFrom: ATOMIC_LIST,
    },
  },
  ResourceRequirements: { fields: { claims: { listType: 'map', listMapKeys: ['name'] } } },
  VolumeMount: { fields: { bindMountOptions: { listType: 'set' } } },
  EnvVar: { fields: { valueFrom: { type: 'EnvVarSource' } } },
  EnvVarSource: {
    fields: {
      fieldRef: { type: 'ObjectFieldSelector' },
      resourceFieldRef: { type: 'ResourceFieldSelector' },
      configMapKeyRef: { type: 'ConfigMapKeySelector' },
      secretKeyRef: { type: 'SecretKeySelector' },
    },
  },
  ObjectFieldSelector: { fields: {}, structType: 'atomic' },
  ResourceFieldSelector: { fields: {}, structType: 'atomic' },
  ConfigMapKeySelector: { fields: {}, structType: 'atomic' },
  SecretKeySelector: { fields: {}, structType: 'atomic' },

  PodStatus: {
    fields: {
      conditions: keyedList('PodCondition', 'type'),
      // SMP merges hostIPs by ip, but apply treats the list as atomic (+listType=atomic).
      hostIPs: { patchStrategy: 'merge', patchMergeKey: 'ip', listType: 'atomic' },
      podIPs: keyedList('PodIP', 'ip'),
      initContainerStatuses: { type: 'ContainerStatus', listType: 'atomic' },
      containerStatuses: { type: 'ContainerStatus', listType: 'atomic' },
      ephemeralContainerStatuses: { type: 'ContainerStatus', listType: 'atomic' },
      resourceClaimStatuses: keyedList('PodResourceClaimStatus', 'name', ['name'], true),
      nodeAllocatableResourceClaimStatuses: keyedList('NodeAllocatableResourceClaimStatus', 'resourceClaimName'),
      volumeHealth: { listType: 'map', listMapKeys: ['name'] },
    },
  },
  ContainerStatus: {
    fields: {
      volumeMounts: keyedList('VolumeMountStatus', 'mountPath'),
      allocatedResourcesStatus: keyedList('ResourceStatus', 'name'),
    },
  },
  NodeAllocatableResourceClaimStatus: {
    fields: {
      containers: { listType: 'set' },
      mapping: keyedList('NodeAllocatableMappedResources', 'name'),
      overhead: keyedList('NodeAllocatableOverheadResources', 'name'),
    },
  },

  NodeSpec: { fields: { podCIDRs: MERGED_SET, taints: ATOMIC_LIST } },
  NodeStatus: {
    fields: {
      conditions: keyedList('NodeCondition', 'type'),
      addresses: keyedList('NodeAddress', 'type'),
      images: ATOMIC_LIST,
      volumesInUse: ATOMIC_LIST,
      volumesAttached: ATOMIC_LIST,
    },
  },

  ServiceSpec: {
    fields: {
      ports: { ...keyedList('ServicePort', 'port', ['port', 'protocol']), listMapKeyDefaults: { protocol: 'TCP' } },
      selector: ATOMIC_MAP,
      clusterIPs: ATOMIC_LIST,
      externalIPs: ATOMIC_LIST,
      ipFamilies: ATOMIC_LIST,
    },
  },
  ServiceStatus: { fields: { conditions: keyedList('Condition', 'type') } },
  ServiceAccount: {
    fields: { secrets: keyedList('ObjectReference', 'name'), imagePullSecrets: ATOMIC_LIST },
  },
  NamespaceSpec: { fields: { finalizers: ATOMIC_LIST } },
  NamespaceStatus: { fields: { conditions: keyedList('NamespaceCondition', 'type') } },
  ReplicationControllerSpec: {
    fields: { selector: ATOMIC_MAP, template: { type: 'PodTemplateSpec' } },
  },
  ReplicationControllerStatus: { fields: { conditions: keyedList('ReplicationControllerCondition', 'type') } },
  PersistentVolumeClaimSpec: { fields: { accessModes: ATOMIC_LIST } },
  PersistentVolumeClaimStatus: {
    fields: { conditions: keyedList('PersistentVolumeClaimCondition', 'type'), accessModes: ATOMIC_LIST },
  },
  PersistentVolumeSpec: { fields: { accessModes: ATOMIC_LIST, mountOptions: ATOMIC_LIST } },
  ComponentStatus: { fields: { conditions: keyedList('ComponentCondition', 'type') } },
};
