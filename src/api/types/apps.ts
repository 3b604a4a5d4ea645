/** apps/v1 kinds: Deployment and ReplicaSet. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject, LabelSelector } from '../types.js';
import type { PodTemplateSpec } from './core.js';

/** apps/v1 ReplicaSetCondition. */
export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** apps/v1 ReplicaSetSpec; selector is required on apps/v1. */
export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
}

/** apps/v1 ReplicaSetStatus. */
export interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

/** apps/v1 ReplicaSet. */
export interface ReplicaSet extends KubeObject {
  spec?: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

/** apps/v1 RollingUpdateDeployment; the int-or-percent values stay as sent. */
export interface RollingUpdateDeployment {
  maxUnavailable?: number | string;
  maxSurge?: number | string;
}

/** apps/v1 DeploymentStrategy. */
export interface DeploymentStrategy {
  /** RollingUpdate (the default) or Recreate. */
  type?: string;
  rollingUpdate?: RollingUpdateDeployment;
}

/** apps/v1 DeploymentSpec. */
export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

/** apps/v1 DeploymentCondition. */
export interface DeploymentCondition {
  type: string;
  status: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** apps/v1 DeploymentStatus. */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: DeploymentCondition[];
  collisionCount?: number;
}

/** apps/v1 Deployment. */
export interface Deployment extends KubeObject {
  spec?: DeploymentSpec;
  status?: DeploymentStatus;
}
