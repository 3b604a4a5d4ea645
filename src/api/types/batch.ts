/** batch/v1 Job and CronJob. Upstream's JSON names; optional where upstream is omitempty. */
import type { KubeObject, LabelSelector, ObjectMeta } from '../types.js';
import type { ObjectReference, PodTemplateSpec } from './core.js';

/** batch/v1 JobSpec. */
export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  activeDeadlineSeconds?: number | null;
  backoffLimit?: number;
  selector?: LabelSelector;
  manualSelector?: boolean;
  template?: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  /** NonIndexed (the default) or Indexed. */
  completionMode?: string;
  suspend?: boolean;
  /** TerminatingOrFailed or Failed. */
  podReplacementPolicy?: string;
}

/** batch/v1 JobCondition. */
export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** batch/v1 UncountedTerminatedPods: uids of finished pods not yet counted. */
export interface UncountedTerminatedPods {
  succeeded?: string[];
  failed?: string[];
}

/** batch/v1 JobStatus. */
export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  completedIndexes?: string;
  uncountedTerminatedPods?: UncountedTerminatedPods;
  ready?: number;
}

/** batch/v1 Job. */
export interface Job extends KubeObject {
  spec?: JobSpec;
  status?: JobStatus;
}

/** batch/v1 JobTemplateSpec: the Job a CronJob creates. */
export interface JobTemplateSpec {
  metadata?: ObjectMeta;
  spec?: JobSpec;
}

/** batch/v1 CronJobSpec. */
export interface CronJobSpec {
  schedule: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  /** Allow (the default), Forbid or Replace. */
  concurrencyPolicy?: string;
  suspend?: boolean;
  jobTemplate: JobTemplateSpec;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

/** batch/v1 CronJobStatus. */
export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

/** batch/v1 CronJob. */
export interface CronJob extends KubeObject {
  spec?: CronJobSpec;
  status?: CronJobStatus;
}
