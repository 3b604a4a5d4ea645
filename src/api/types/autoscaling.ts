/** autoscaling/v2 HorizontalPodAutoscaler. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject, LabelSelector } from '../types.js';

/** autoscaling/v2 CrossVersionObjectReference: the scale target. */
export interface CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion?: string;
}

/** autoscaling/v2 MetricTarget. */
export interface MetricTarget {
  /** Utilization, Value or AverageValue. */
  type: string;
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

/** autoscaling/v2 MetricIdentifier. */
export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector;
}

/** autoscaling/v2 MetricSpec: one source, as named by `type`. */
export interface MetricSpec {
  /** Object, Pods, Resource, ContainerResource or External. */
  type: string;
  resource?: { name: string; target: MetricTarget };
  containerResource?: { name: string; container: string; target: MetricTarget };
  pods?: { metric: MetricIdentifier; target: MetricTarget };
  object?: { describedObject: CrossVersionObjectReference; metric: MetricIdentifier; target: MetricTarget };
  external?: { metric: MetricIdentifier; target: MetricTarget };
}

/** autoscaling/v2 HPAScalingRules. */
export interface HPAScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: { type: string; value: number; periodSeconds: number }[];
}

/** autoscaling/v2 HorizontalPodAutoscalerSpec. */
export interface HorizontalPodAutoscalerSpec {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number;
  maxReplicas: number;
  metrics?: MetricSpec[];
  behavior?: { scaleUp?: HPAScalingRules; scaleDown?: HPAScalingRules };
}

/** autoscaling/v2 HorizontalPodAutoscalerStatus. */
export interface HorizontalPodAutoscalerStatus {
  observedGeneration?: number;
  lastScaleTime?: string;
  currentReplicas?: number;
  desiredReplicas: number;
  currentMetrics?: Record<string, unknown>[];
  conditions?: { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string }[];
}

/** autoscaling/v2 HorizontalPodAutoscaler. */
export interface HorizontalPodAutoscaler extends KubeObject {
  spec?: HorizontalPodAutoscalerSpec;
  status?: HorizontalPodAutoscalerStatus;
}

/** autoscaling/v1 HorizontalPodAutoscalerSpec: one CPU utilization target instead of metrics. */
export interface HorizontalPodAutoscalerSpecV1 {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas?: number;
  maxReplicas: number;
  targetCPUUtilizationPercentage?: number;
}

/** autoscaling/v1 HorizontalPodAutoscalerStatus. */
export interface HorizontalPodAutoscalerStatusV1 {
  observedGeneration?: number;
  lastScaleTime?: string;
  currentReplicas: number;
  desiredReplicas: number;
  currentCPUUtilizationPercentage?: number;
}

/** autoscaling/v1 HorizontalPodAutoscaler, served by conversion from the stored autoscaling/v2 object. */
export interface HorizontalPodAutoscalerV1 extends KubeObject {
  spec?: HorizontalPodAutoscalerSpecV1;
  status?: HorizontalPodAutoscalerStatusV1;
}
