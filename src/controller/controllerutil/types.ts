/**
 * The shapes of the apps/v1 and core/v1 objects the workload controllers read
 * and write. Objects stay plain JSON; only the fields used are named.
 */
import type { KubeObject, LabelSelector } from '../../api/index.js';
import type { Condition } from '../nodeutil/index.js';

/** v1.PodTemplateSpec. */
export interface PodTemplateSpec {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[]; [k: string]: unknown };
  spec?: Record<string, unknown>;
}

/** v1.Pod, with the fields the workload controllers use. */
export interface Pod extends KubeObject {
  spec?: { nodeName?: string; [k: string]: unknown };
  status?: {
    phase?: string;
    conditions?: Condition[];
    containerStatuses?: { restartCount?: number; [k: string]: unknown }[];
    [k: string]: unknown;
  };
}

/** apps/v1 ReplicaSet. */
export interface ReplicaSet extends KubeObject {
  spec?: { replicas?: number; minReadySeconds?: number; selector?: LabelSelector; template?: PodTemplateSpec };
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: Condition[];
  };
}

/** apps/v1 DeploymentStrategy; the int-or-percent values stay as sent. */
export interface DeploymentStrategy {
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
}

/** apps/v1 DeploymentCondition. */
export interface DeploymentCondition extends Condition {
  lastUpdateTime?: string | null;
}

/** apps/v1 Deployment. */
export interface Deployment extends KubeObject {
  spec?: {
    replicas?: number;
    selector?: LabelSelector;
    template?: PodTemplateSpec;
    strategy?: DeploymentStrategy;
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: DeploymentCondition[];
    collisionCount?: number;
  };
}

/** The apiVersion/kind pairs the workload controllers stamp on owner references and Events. */
export const KIND_REPLICASET = { apiVersion: 'apps/v1', kind: 'ReplicaSet' } as const;
/** apps/v1 Deployment's apiVersion and kind. */
export const KIND_DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
