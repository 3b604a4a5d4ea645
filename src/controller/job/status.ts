/**
 * Job conditions and counts, like the condition helpers of
 * pkg/controller/job/job_controller.go: the terminal conditions (Complete,
 * Failed) are preceded by their targets (SuccessCriteriaMet, FailureTarget),
 * which are set as soon as the outcome is known, while remaining pods are
 * still being removed.
 */
import { formatTimestamp, type Job, type JobCondition } from '../../api/index.js';

/** Condition types a Job carries. */
export const COND = {
  complete: 'Complete',
  failed: 'Failed',
  successCriteriaMet: 'SuccessCriteriaMet',
  failureTarget: 'FailureTarget',
  suspended: 'Suspended',
} as const;

/** True when the condition of `type` is True. */
export function hasCondition(job: Job, type: string): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** Complete or Failed: nothing more to do (IsJobFinished). */
export function isJobFinished(job: Job): boolean {
  return hasCondition(job, COND.complete) || hasCondition(job, COND.failed);
}

/**
 * Sets a condition, like ensureJobConditionStatus: a new status moves the
 * transition time; the same status only refreshes reason and message.
 */
export function ensureCondition(
  conds: JobCondition[],
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
  nowMs: number,
): JobCondition[] {
  const now = formatTimestamp(nowMs);
  const i = conds.findIndex((c) => c.type === type);
  if (i < 0) {
    // Upstream never adds a False condition that was not there before.
    if (status === 'False') return conds;
    return [...conds, { type, status, reason, message, lastProbeTime: now, lastTransitionTime: now }];
  }
  const c = conds[i]!;
  if (c.status === status && c.reason === reason && c.message === message) return conds;
  const next = [...conds];
  next[i] = {
    ...c,
    status,
    reason,
    message,
    lastProbeTime: now,
    ...(c.status !== status ? { lastTransitionTime: now } : {}),
  };
  return next;
}
