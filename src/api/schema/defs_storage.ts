/**
 * Volumes (core PersistentVolume and PersistentVolumeClaim, storage.k8s.io StorageClass), networking.k8s.io
 * NetworkPolicy and autoscaling HorizontalPodAutoscaler (v2, and the v1 served by conversion) definitions.
 */
import { PV_SOURCES } from '../validation/storage.js';
import { condition, top, type StructDesc } from './dsl.js';

// The in-tree and flex volume sources kscale never mounts stay free-form objects: accepted, not checked field by field.
const TYPED_PV_SOURCES = new Set(['hostPath', 'nfs', 'local', 'csi']);
const LEGACY_PV_SOURCES = PV_SOURCES.filter((s) => !TYPED_PV_SOURCES.has(s));

/** The storage, networking and autoscaling definitions by short name. */
export const STORAGE_DEFS: Record<string, StructDesc> = {
  'core.PersistentVolume': top('core.PersistentVolumeSpec', 'core.PersistentVolumeStatus'),
  'core.PersistentVolumeSpec': {
    capacity: 'map[Quantity]',
    ...Object.fromEntries(LEGACY_PV_SOURCES.map((s) => [s, 'object'])),
    hostPath: 'core.HostPathVolumeSource',
    nfs: 'core.NFSVolumeSource',
    local: 'core.LocalVolumeSource',
    csi: 'core.CSIPersistentVolumeSource',
    accessModes: '[]string',
    claimRef: 'core.ObjectReference',
    persistentVolumeReclaimPolicy: 'string',
    storageClassName: 'string',
    mountOptions: '[]string',
    volumeMode: 'string',
    nodeAffinity: 'core.VolumeNodeAffinity',
    volumeAttributesClassName: 'string',
  },
  'core.LocalVolumeSource': { path: 'string', fsType: 'string' },
  'core.CSIPersistentVolumeSource': {
    driver: 'string',
    volumeHandle: 'string',
    readOnly: 'boolean',
    fsType: 'string',
    volumeAttributes: 'map[string]',
    controllerPublishSecretRef: 'core.SecretReference',
    nodeStageSecretRef: 'core.SecretReference',
    nodePublishSecretRef: 'core.SecretReference',
    controllerExpandSecretRef: 'core.SecretReference',
    nodeExpandSecretRef: 'core.SecretReference',
  },
  'core.SecretReference': { name: 'string', namespace: 'string' },
  'core.VolumeNodeAffinity': { required: 'core.NodeSelector' },
  'core.PersistentVolumeStatus': {
    phase: 'string',
    message: 'string',
    reason: 'string',
    lastPhaseTransitionTime: 'Time',
  },
  'core.PersistentVolumeClaim': top('core.PersistentVolumeClaimSpec', 'core.PersistentVolumeClaimStatus'),
  'core.PersistentVolumeClaimSpec': {
    accessModes: '[]string',
    selector: 'meta.LabelSelector',
    resources: 'core.VolumeResourceRequirements',
    volumeName: 'string',
    storageClassName: 'string',
    volumeMode: 'string',
    dataSource: 'core.TypedLocalObjectReference',
    dataSourceRef: 'core.TypedObjectReference',
    volumeAttributesClassName: 'string',
  },
  'core.VolumeResourceRequirements': { limits: 'map[Quantity]', requests: 'map[Quantity]' },
  'core.TypedLocalObjectReference': { apiGroup: 'string', kind: 'string', name: 'string' },
  'core.TypedObjectReference': { apiGroup: 'string', kind: 'string', name: 'string', namespace: 'string' },
  'core.PersistentVolumeClaimStatus': {
    phase: 'string',
    accessModes: '[]string',
    capacity: 'map[Quantity]',
    conditions: '[]core.PersistentVolumeClaimCondition@type',
    allocatedResources: 'map[Quantity]',
    allocatedResourceStatuses: 'map[string]',
    currentVolumeAttributesClassName: 'string',
    modifyVolumeStatus: 'core.ModifyVolumeStatus',
  },
  'core.PersistentVolumeClaimCondition': condition({ lastProbeTime: 'Time' }),
  'core.ModifyVolumeStatus': { targetVolumeAttributesClassName: 'string', status: 'string' },
  'core.TopologySelectorTerm': { matchLabelExpressions: '[]core.TopologySelectorLabelRequirement' },
  'core.TopologySelectorLabelRequirement': { key: 'string', values: '[]string' },

  'storage.StorageClass': {
    ...top(),
    provisioner: 'string',
    parameters: 'map[string]',
    reclaimPolicy: 'string',
    mountOptions: '[]string',
    allowVolumeExpansion: 'boolean',
    volumeBindingMode: 'string',
    allowedTopologies: '[]core.TopologySelectorTerm',
  },

  'networking.NetworkPolicy': top('networking.NetworkPolicySpec'),
  'networking.NetworkPolicySpec': {
    podSelector: 'meta.LabelSelector',
    ingress: '[]networking.NetworkPolicyIngressRule',
    egress: '[]networking.NetworkPolicyEgressRule',
    policyTypes: '[]string',
  },
  'networking.NetworkPolicyIngressRule': {
    ports: '[]networking.NetworkPolicyPort',
    from: '[]networking.NetworkPolicyPeer',
  },
  'networking.NetworkPolicyEgressRule': {
    ports: '[]networking.NetworkPolicyPort',
    to: '[]networking.NetworkPolicyPeer',
  },
  'networking.NetworkPolicyPeer': {
    podSelector: 'meta.LabelSelector',
    namespaceSelector: 'meta.LabelSelector',
    ipBlock: 'networking.IPBlock',
  },
  'networking.NetworkPolicyPort': { protocol: 'string', port: 'IntOrString', endPort: 'int' },
  'networking.IPBlock': { cidr: 'string', except: '[]string' },

  'autoscaling.HorizontalPodAutoscaler': top(
    'autoscaling.HorizontalPodAutoscalerSpec',
    'autoscaling.HorizontalPodAutoscalerStatus',
  ),
  'autoscaling.HorizontalPodAutoscalerSpec': {
    scaleTargetRef: 'autoscaling.CrossVersionObjectReference',
    minReplicas: 'int',
    maxReplicas: 'int',
    targetCPUUtilizationPercentage: 'int',
  },
  'autoscaling.CrossVersionObjectReference': { kind: 'string', name: 'string', apiVersion: 'string' },
  'autoscaling.HorizontalPodAutoscalerStatus': {
    observedGeneration: 'int64',
    lastScaleTime: 'Time',
    currentReplicas: 'int',
    desiredReplicas: 'int',
    currentCPUUtilizationPercentage: 'int',
  },

  'autoscalingv2.HorizontalPodAutoscaler': top(
    'autoscalingv2.HorizontalPodAutoscalerSpec',
    'autoscalingv2.HorizontalPodAutoscalerStatus',
  ),
  'autoscalingv2.HorizontalPodAutoscalerSpec': {
    scaleTargetRef: 'autoscalingv2.CrossVersionObjectReference',
    minReplicas: 'int',
    maxReplicas: 'int',
    metrics: '[]autoscalingv2.MetricSpec',
    behavior: 'autoscalingv2.HorizontalPodAutoscalerBehavior',
  },
  'autoscalingv2.CrossVersionObjectReference': { kind: 'string', name: 'string', apiVersion: 'string' },
  'autoscalingv2.HorizontalPodAutoscalerBehavior': {
    scaleUp: 'autoscalingv2.HPAScalingRules',
    scaleDown: 'autoscalingv2.HPAScalingRules',
  },
  'autoscalingv2.HPAScalingRules': {
    stabilizationWindowSeconds: 'int',
    selectPolicy: 'string',
    policies: '[]autoscalingv2.HPAScalingPolicy',
    tolerance: 'Quantity',
  },
  'autoscalingv2.HPAScalingPolicy': { type: 'string', value: 'int', periodSeconds: 'int' },
  'autoscalingv2.MetricSpec': {
    type: 'string',
    object: 'autoscalingv2.ObjectMetricSource',
    pods: 'autoscalingv2.PodsMetricSource',
    resource: 'autoscalingv2.ResourceMetricSource',
    containerResource: 'autoscalingv2.ContainerResourceMetricSource',
    external: 'autoscalingv2.ExternalMetricSource',
  },
  'autoscalingv2.ObjectMetricSource': {
    describedObject: 'autoscalingv2.CrossVersionObjectReference',
    target: 'autoscalingv2.MetricTarget',
    metric: 'autoscalingv2.MetricIdentifier',
  },
  'autoscalingv2.PodsMetricSource': { metric: 'autoscalingv2.MetricIdentifier', target: 'autoscalingv2.MetricTarget' },
  'autoscalingv2.ResourceMetricSource': { name: 'string', target: 'autoscalingv2.MetricTarget' },
  'autoscalingv2.ContainerResourceMetricSource': {
    name: 'string',
    target: 'autoscalingv2.MetricTarget',
    container: 'string',
  },
  'autoscalingv2.ExternalMetricSource': {
    metric: 'autoscalingv2.MetricIdentifier',
    target: 'autoscalingv2.MetricTarget',
  },
  'autoscalingv2.MetricIdentifier': { name: 'string', selector: 'meta.LabelSelector' },
  'autoscalingv2.MetricTarget': {
    type: 'string',
    value: 'Quantity',
    averageValue: 'Quantity',
    averageUtilization: 'int',
  },
  'autoscalingv2.HorizontalPodAutoscalerStatus': {
    observedGeneration: 'int64',
    lastScaleTime: 'Time',
    currentReplicas: 'int',
    desiredReplicas: 'int',
    currentMetrics: '[]autoscalingv2.MetricStatus',
    conditions: '[]autoscalingv2.HorizontalPodAutoscalerCondition@type',
  },
  'autoscalingv2.HorizontalPodAutoscalerCondition': condition(),
  'autoscalingv2.MetricStatus': {
    type: 'string',
    object: 'autoscalingv2.ObjectMetricStatus',
    pods: 'autoscalingv2.PodsMetricStatus',
    resource: 'autoscalingv2.ResourceMetricStatus',
    containerResource: 'autoscalingv2.ContainerResourceMetricStatus',
    external: 'autoscalingv2.ExternalMetricStatus',
  },
  'autoscalingv2.ObjectMetricStatus': {
    metric: 'autoscalingv2.MetricIdentifier',
    current: 'autoscalingv2.MetricValueStatus',
    describedObject: 'autoscalingv2.CrossVersionObjectReference',
  },
  'autoscalingv2.PodsMetricStatus': {
    metric: 'autoscalingv2.MetricIdentifier',
    current: 'autoscalingv2.MetricValueStatus',
  },
  'autoscalingv2.ResourceMetricStatus': { name: 'string', current: 'autoscalingv2.MetricValueStatus' },
  'autoscalingv2.ContainerResourceMetricStatus': {
    name: 'string',
    current: 'autoscalingv2.MetricValueStatus',
    container: 'string',
  },
  'autoscalingv2.ExternalMetricStatus': {
    metric: 'autoscalingv2.MetricIdentifier',
    current: 'autoscalingv2.MetricValueStatus',
  },
  'autoscalingv2.MetricValueStatus': { value: 'Quantity', averageValue: 'Quantity', averageUtilization: 'int' },
};
