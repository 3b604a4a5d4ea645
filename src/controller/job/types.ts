/** The batch/v1 Job shape the Job controller reads and writes; only the fields used are named. */
import type { LabelSelector } from '../../api/index.js';
import type { KubeObject } from '../../client/index.js';
import type { Pod as WorkloadPod, PodTemplateSpec } from '../controllerutil/index.js';
import type { Condition } from '../nodeutil/index.js';

/** batch/v1 JobCondition. */
export interface JobCondition extends Condition {
  lastProbeTime?: string | null;
}

/** batch/v1 JobStatus. */
export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  ready?: number;
  terminating?: number;
  succeeded?: number;
  failed?: number;
  completedIndexes?: string;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}

/** batch/v1 Job. */
export interface Job extends KubeObject {
  spec?: {
    parallelism?: number;
    completions?: number | null;
    backoffLimit?: number;
    activeDeadlineSeconds?: number | null;
    completionMode?: 'NonIndexed' | 'Indexed';
    suspend?: boolean;
    podReplacementPolicy?: 'TerminatingOrFailed' | 'Failed';
    selector?: LabelSelector;
    template?: PodTemplateSpec;
  };
  status?: JobStatus;
}

/** A pod as the Job controller sees it: containers' termination times tell when it finished. */
export interface JobPod extends WorkloadPod {
  status?: WorkloadPod['status'] & {
    containerStatuses?: { restartCount?: number; state?: { terminated?: { finishedAt?: string } }; [k: string]: unknown }[];
  };
}

/** The Job's apiVersion and kind, for owner references and Events. */
export const KIND_JOB = { apiVersion: 'batch/v1', kind: 'Job' } as const;
/** The completion index annotation and label of an Indexed Job's pods. */
export const JOB_COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
/** The environment variable carrying the index into containers. */
export const JOB_COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
