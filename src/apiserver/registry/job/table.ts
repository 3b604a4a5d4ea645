/** The jobs' Table columns, as upstream's printJob: NAME STATUS COMPLETIONS DURATION AGE, wide CONTAINERS IMAGES SELECTOR. */
import type { Job } from '../../../api/index.js';
import {
  column,
  docs,
  humanDuration,
  int,
  parseTime,
  templatedWorkloadPrinter,
  type ResourcePrinter,
} from '../printers/index.js';

function jobCondition(job: Job, type: string): boolean {
  const c = (job.status?.conditions ?? []).find((x) => x.type === type);
  return c?.status === 'True';
}

/** Like upstream: Complete, Failed, Terminating, Suspended, FailureTarget, else Running. */
function jobStatus(job: Job): string {
  if (jobCondition(job, 'Complete')) return 'Complete';
  if (jobCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (jobCondition(job, 'Suspended')) return 'Suspended';
  if (jobCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(job: Job): string {
  const succeeded = int(job.status?.succeeded);
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${job.spec.completions}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Job, now: number): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

/** Jobs: NAME STATUS COMPLETIONS DURATION AGE, wide CONTAINERS IMAGES SELECTOR. */
export const jobTable: ResourcePrinter = templatedWorkloadPrinter<Job>({
  columns: [
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', docs.jobStatusSucceeded),
    column('Duration', 'string', 'Time required to complete the job.'),
  ],
  selectorDoc: docs.jobSpecSelector,
  cells: (job, now) => [jobStatus(job), jobCompletions(job), jobDuration(job, now)],
  templateSpec: (job) => job.spec,
});
