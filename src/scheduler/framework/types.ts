/**
 * Light shapes of the core/v1 Pod and Node fields the scheduler reads.
 * Objects stay plain JSON from the informers; nothing here is exhaustive.
 */
import type { KubeObject, LabelSelector } from '../../api/index.js';

/** corev1.Toleration. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** corev1.Taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** corev1.NodeSelectorRequirement. */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** corev1.NodeSelectorTerm: requirements ANDed. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** corev1.PodAffinityTerm. */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
  topologyKey: string;
}

/** corev1.WeightedPodAffinityTerm. */
export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

/** corev1.Affinity. */
export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
    preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference: NodeSelectorTerm }[];
  };
  podAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
  };
  podAntiAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
    preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
  };
}

/** corev1.TopologySpreadConstraint. */
export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
  minDomains?: number;
}

/** corev1.ResourceRequirements. */
export interface ResourceRequirements {
  requests?: Record<string, string | number>;
  limits?: Record<string, string | number>;
}

/** corev1.Container, the parts that matter for scheduling. */
export interface Container {
  name?: string;
  resources?: ResourceRequirements;
  ports?: { containerPort?: number; hostPort?: number; protocol?: string; hostIP?: string }[];
  restartPolicy?: string;
}

/** corev1.PodCondition. */
export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

/** corev1.Pod. */
export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    schedulerName?: string;
    priority?: number;
    priorityClassName?: string;
    preemptionPolicy?: string;
    containers?: Container[];
    initContainers?: Container[];
    overhead?: Record<string, string | number>;
    nodeSelector?: Record<string, string>;
    affinity?: Affinity;
    tolerations?: Toleration[];
    topologySpreadConstraints?: TopologySpreadConstraint[];
    schedulingGates?: { name: string }[];
  };
  status?: {
    phase?: string;
    conditions?: PodCondition[];
    nominatedNodeName?: string;
    startTime?: string;
  };
}

/** corev1.Node. */
export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: {
    allocatable?: Record<string, string | number>;
    capacity?: Record<string, string | number>;
    conditions?: { type: string; status: string }[];
  };
}
