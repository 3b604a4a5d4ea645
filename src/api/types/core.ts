/**
 * core/v1 kinds the components read and write: Pod, Node, Service, Endpoints,
 * Namespace, Event, ConfigMap and Secret. Field names are upstream's JSON
 * names; a field is optional where upstream's is omitempty. Objects stay plain
 * JSON, so fields kscale does not read are left out rather than typed loosely.
 */
import type { KubeObject, LabelSelector, ObjectMeta } from '../types.js';

/** A resource.Quantity as JSON carries it: "100m", "1Gi", or a bare number. */
export type Quantity = string | number;
/** v1.ResourceList: resource name to quantity. */
export type ResourceList = Record<string, Quantity>;

/** v1.ObjectReference. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** v1.Taint; timeAdded is set for NoExecute taints only. */
export interface Taint {
  key: string;
  value?: string;
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  effect: string;
  timeAdded?: string;
}

/** v1.Toleration; no tolerationSeconds means tolerate forever. */
export interface Toleration {
  key?: string;
  /** Exists, or Equal (the default, also spelled ""). */
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

/** v1.NodeSelectorRequirement: In, NotIn, Exists, DoesNotExist, Gt or Lt. */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** v1.NodeSelectorTerm: requirements ANDed. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** v1.NodeSelector: terms ORed. */
export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

/** v1.PreferredSchedulingTerm. */
export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

/** v1.NodeAffinity. */
export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

/** v1.PodAffinityTerm. */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
  namespaceSelector?: LabelSelector;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

/** v1.WeightedPodAffinityTerm. */
export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

/** v1.PodAffinity and v1.PodAntiAffinity, which have the same fields. */
export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

/** v1.PodAntiAffinity. */
export type PodAntiAffinity = PodAffinity;

/** v1.Affinity. */
export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAntiAffinity;
}

/** v1.TopologySpreadConstraint. */
export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  /** DoNotSchedule or ScheduleAnyway. */
  whenUnsatisfiable: string;
  labelSelector?: LabelSelector;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  matchLabelKeys?: string[];
}

/** v1.ResourceRequirements. */
export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
}

/** v1.ContainerPort. */
export interface ContainerPort {
  name?: string;
  hostPort?: number;
  containerPort: number;
  protocol?: string;
  hostIP?: string;
}

/** v1.EnvVar; valueFrom is kept as sent. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

/** v1.Container, with the fields kscale reads or writes. */
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: ContainerPort[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  /** Only on init containers: Always makes a sidecar. */
  restartPolicy?: string;
}

/** v1.PodSchedulingGate. */
export interface PodSchedulingGate {
  name: string;
}

/** v1.Volume: its name and source; only the PersistentVolumeClaim source is typed, the others pass through. */
export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [source: string]: unknown;
}

/** v1.PodReadinessGate. */
export interface PodReadinessGate {
  conditionType: string;
}

/** v1.PodSpec. */
export interface PodSpec {
  initContainers?: Container[];
  containers: Container[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  nodeName?: string;
  hostname?: string;
  subdomain?: string;
  hostNetwork?: boolean;
  volumes?: Volume[];
  affinity?: Affinity;
  schedulerName?: string;
  tolerations?: Toleration[];
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
  overhead?: ResourceList;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  schedulingGates?: PodSchedulingGate[];
  readinessGates?: PodReadinessGate[];
}

/** v1.PodCondition. */
export interface PodCondition {
  type: string;
  /** True, False or Unknown. */
  status: string;
  observedGeneration?: number;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** v1.ContainerState: exactly one of its fields is set. */
export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string | null };
  terminated?: {
    exitCode: number;
    signal?: number;
    reason?: string;
    message?: string;
    startedAt?: string | null;
    finishedAt?: string | null;
    containerID?: string;
  };
}

/** v1.ContainerStatus. */
export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

/** v1.PodIP and v1.HostIP. */
export interface PodIP {
  ip: string;
}

/** v1.PodStatus. */
export interface PodStatus {
  observedGeneration?: number;
  phase?: string;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: PodIP[];
  podIP?: string;
  podIPs?: PodIP[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
}

/** v1.Pod. */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** v1.PodTemplateSpec, the pod a workload stamps out. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

/** v1.NodeCondition. */
export interface NodeCondition {
  type: string;
  /** True, False or Unknown. */
  status: string;
  lastHeartbeatTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** v1.NodeAddress. */
export interface NodeAddress {
  type: string;
  address: string;
}

/** v1.ContainerImage. */
export interface ContainerImage {
  names?: string[];
  sizeBytes?: number;
}

/** v1.NodeDaemonEndpoints; Go's field name is the JSON name here. */
export interface NodeDaemonEndpoints {
  kubeletEndpoint?: { Port: number };
}

/** v1.NodeSystemInfo. */
export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

/** v1.NodeSpec. */
export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
}

/** v1.NodeStatus. */
export interface NodeStatus {
  capacity?: ResourceList;
  allocatable?: ResourceList;
  phase?: string;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: NodeDaemonEndpoints;
  nodeInfo?: NodeSystemInfo;
  images?: ContainerImage[];
}

/** v1.Node. */
export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

/** v1.ServicePort; targetPort is an int-or-string. */
export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

/** v1.SessionAffinityConfig. */
export interface SessionAffinityConfig {
  clientIP?: { timeoutSeconds?: number };
}

/** v1.ServiceSpec. */
export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string> | null;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  externalName?: string;
  externalTrafficPolicy?: string;
  publishNotReadyAddresses?: boolean;
  sessionAffinityConfig?: SessionAffinityConfig;
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
}

/** v1.LoadBalancerIngress, with the fields kubectl prints. */
export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

/** v1.ServiceStatus; conditions are kept as sent. */
export interface ServiceStatus {
  loadBalancer?: { ingress?: LoadBalancerIngress[] };
  conditions?: unknown[];
}

/** v1.Service. */
export interface Service extends KubeObject {
  spec?: ServiceSpec;
  status?: ServiceStatus;
}

/** v1.EndpointAddress. */
export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

/** v1.EndpointPort (core), named apart from discovery/v1's EndpointPort. */
export interface EndpointsPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

/** v1.EndpointSubset. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointsPort[];
}

/** v1.Endpoints. */
export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

/** v1.Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

/** v1.NamespaceCondition. */
export interface NamespaceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** v1.EventSource. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** v1.EventSeries: a repeating event's count and last time (a MicroTime). */
export interface EventSeries {
  count?: number;
  lastObservedTime?: string;
}

/** core/v1 Event. */
export interface Event extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  /** Normal or Warning. */
  type?: string;
  eventTime?: string | null;
  series?: EventSeries | null;
  action?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** v1.ConfigMap. */
export interface ConfigMap extends KubeObject {
  immutable?: boolean;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** v1.Secret; data values are base64. */
export interface Secret extends KubeObject {
  immutable?: boolean;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
}

/** v1.ReplicationControllerSpec: like a ReplicaSet's, with a plain label map as selector. */
export interface ReplicationControllerSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: Record<string, string>;
  template?: PodTemplateSpec;
}

/** v1.ReplicationControllerStatus: the same counts a ReplicaSet reports. */
export interface ReplicationControllerStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string }[];
}

/** v1.ReplicationController. */
export interface ReplicationController extends KubeObject {
  spec?: ReplicationControllerSpec;
  status?: ReplicationControllerStatus;
}

/** v1.TypedLocalObjectReference, as a claim's dataSource. */
export interface TypedLocalObjectReference {
  apiGroup?: string;
  kind: string;
  name: string;
}

/** v1.VolumeResourceRequirements: a claim's requests and limits (only `storage` matters). */
export interface VolumeResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

/** v1.PersistentVolumeClaimSpec. */
export interface PersistentVolumeClaimSpec {
  accessModes?: string[];
  selector?: LabelSelector;
  resources?: VolumeResourceRequirements;
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: string;
  dataSource?: TypedLocalObjectReference;
  volumeAttributesClassName?: string;
}

/** v1.PersistentVolumeClaimStatus. */
export interface PersistentVolumeClaimStatus {
  /** Pending, Bound or Lost. */
  phase?: string;
  accessModes?: string[];
  capacity?: ResourceList;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

/** v1.PersistentVolumeClaim (namespaced). */
export interface PersistentVolumeClaim extends KubeObject {
  spec?: PersistentVolumeClaimSpec;
  status?: PersistentVolumeClaimStatus;
}

/** v1.PersistentVolumeSpec; of the volume sources kscale's hollow volumes use hostPath and csi. */
export interface PersistentVolumeSpec {
  capacity?: ResourceList;
  accessModes?: string[];
  claimRef?: ObjectReference;
  /** Retain, Delete or Recycle. */
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  mountOptions?: string[];
  volumeMode?: string;
  nodeAffinity?: { required?: NodeSelector };
  volumeAttributesClassName?: string;
  hostPath?: { path: string; type?: string };
  local?: { path: string; fsType?: string };
  csi?: { driver: string; volumeHandle: string; fsType?: string; readOnly?: boolean };
}

/** v1.PersistentVolumeStatus. */
export interface PersistentVolumeStatus {
  /** Pending, Available, Bound, Released or Failed. */
  phase?: string;
  message?: string;
  reason?: string;
  lastPhaseTransitionTime?: string;
}

/** v1.PersistentVolume (cluster-scoped). */
export interface PersistentVolume extends KubeObject {
  spec?: PersistentVolumeSpec;
  status?: PersistentVolumeStatus;
}
