/**
 * apps/v1 kinds: Deployment, ReplicaSet, DaemonSet, StatefulSet and ControllerRevision. Upstream's JSON names;
 * optional where upstream is omitempty.
 */
import type { KubeObject, LabelSelector } from '../types.js';
import type { PersistentVolumeClaim, PodTemplateSpec } from './core.js';

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

/** apps/v1 ControllerRevision: an immutable snapshot of a DaemonSet's or StatefulSet's template, by revision number. */
export interface ControllerRevision extends KubeObject {
  /** The patch that restores the template (a RawExtension: any JSON object). */
  data?: Record<string, unknown>;
  revision: number;
}

/** apps/v1 RollingUpdateDaemonSet; the int-or-percent values stay as sent. */
export interface RollingUpdateDaemonSet {
  maxUnavailable?: number | string;
  maxSurge?: number | string;
}

/** apps/v1 DaemonSetUpdateStrategy: RollingUpdate (the default) or OnDelete. */
export interface DaemonSetUpdateStrategy {
  type?: string;
  rollingUpdate?: RollingUpdateDaemonSet;
}

/** apps/v1 DaemonSetSpec. */
export interface DaemonSetSpec {
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  updateStrategy?: DaemonSetUpdateStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

/** apps/v1 DaemonSetCondition. */
export type DaemonSetCondition = ReplicaSetCondition;

/** apps/v1 DaemonSetStatus. */
export interface DaemonSetStatus {
  currentNumberScheduled?: number;
  numberMisscheduled?: number;
  desiredNumberScheduled?: number;
  numberReady?: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
  conditions?: DaemonSetCondition[];
}

/** apps/v1 DaemonSet. */
export interface DaemonSet extends KubeObject {
  spec?: DaemonSetSpec;
  status?: DaemonSetStatus;
}

/** apps/v1 RollingUpdateStatefulSetStrategy. */
export interface RollingUpdateStatefulSetStrategy {
  partition?: number;
  /** Behind upstream's MaxUnavailableStatefulSet feature gate (alpha); kscale accepts and ignores it. */
  maxUnavailable?: number | string;
}

/** apps/v1 StatefulSetUpdateStrategy: RollingUpdate (the default) or OnDelete. */
export interface StatefulSetUpdateStrategy {
  type?: string;
  rollingUpdate?: RollingUpdateStatefulSetStrategy;
}

/** apps/v1 StatefulSetPersistentVolumeClaimRetentionPolicy: Retain or Delete. */
export interface StatefulSetPersistentVolumeClaimRetentionPolicy {
  whenDeleted?: string;
  whenScaled?: string;
}

/** apps/v1 StatefulSetOrdinals. */
export interface StatefulSetOrdinals {
  start?: number;
}

/** apps/v1 StatefulSetSpec. */
export interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  volumeClaimTemplates?: PersistentVolumeClaim[];
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: StatefulSetUpdateStrategy;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: StatefulSetPersistentVolumeClaimRetentionPolicy;
  ordinals?: StatefulSetOrdinals;
}

/** apps/v1 StatefulSetCondition. */
export type StatefulSetCondition = ReplicaSetCondition;

/** apps/v1 StatefulSetStatus. */
export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  conditions?: StatefulSetCondition[];
  availableReplicas?: number;
}

/** apps/v1 StatefulSet. */
export interface StatefulSet extends KubeObject {
  spec?: StatefulSetSpec;
  status?: StatefulSetStatus;
}
