/**
 * Printers for the apps and batch workloads: deployments, replicasets, jobs.
 * Counts are integer cells where upstream uses int64, strings where it formats.
 */
import { CONTAINERS_DESCRIPTION, IMAGES_DESCRIPTION, ageColumn, column, nameColumn } from './columns.js';
import { docs } from './docs.js';
import { humanDuration, parseTime, timestampSince } from './duration.js';
import { formatLabelSelector, int, layoutContainerCells, selectorString, str } from './format.js';
import type { KubeObject, LabelSelector, PodTemplateSpec, PrintedRow, ResourcePrinter } from './types.js';

interface Workload extends KubeObject {
  spec?: {
    replicas?: number;
    completions?: number | null;
    parallelism?: number | null;
    selector?: LabelSelector;
    template?: PodTemplateSpec;
  };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    succeeded?: number;
    startTime?: string | null;
    completionTime?: string | null;
    conditions?: { type?: string; status?: string }[];
  };
}

// spec.replicas defaults to 1 for Deployments and ReplicaSets, as the v1 defaulter does.
function desired(w: Workload): number {
  return typeof w.spec?.replicas === 'number' ? w.spec.replicas : 1;
}

function printDeployment(obj: KubeObject, now: number): PrintedRow {
  const d = obj as Workload;
  const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
  // Upstream prints the raw selector string here ("" when empty), not FormatLabelSelector.
  const selector = selectorString(d.spec?.selector) ?? '<invalid>';
  return {
    cells: [
      str(d.metadata?.name),
      `${int(d.status?.readyReplicas)}/${desired(d)}`,
      int(d.status?.updatedReplicas),
      int(d.status?.availableReplicas),
      timestampSince(d.metadata?.creationTimestamp, now),
      names,
      images,
      selector,
    ],
  };
}

function printReplicaSet(obj: KubeObject, now: number): PrintedRow {
  const rs = obj as Workload;
  const [names, images] = layoutContainerCells(rs.spec?.template?.spec?.containers);
  return {
    cells: [
      str(rs.metadata?.name),
      desired(rs),
      int(rs.status?.replicas),
      int(rs.status?.readyReplicas),
      timestampSince(rs.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(rs.spec?.selector),
    ],
  };
}

function jobCondition(job: Workload, type: string): boolean {
  const c = (job.status?.conditions ?? []).find((x) => x.type === type);
  return c?.status === 'True';
}

/** Like upstream: Complete, Failed, Terminating, Suspended, FailureTarget, else Running. */
function jobStatus(job: Workload): string {
  if (jobCondition(job, 'Complete')) return 'Complete';
  if (jobCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (jobCondition(job, 'Suspended')) return 'Suspended';
  if (jobCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(job: Workload): string {
  const succeeded = int(job.status?.succeeded);
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${job.spec.completions}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Workload, now: number): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

function printJob(obj: KubeObject, now: number): PrintedRow {
  const job = obj as Workload;
  const [names, images] = layoutContainerCells(job.spec?.template?.spec?.containers);
  return {
    cells: [
      str(job.metadata?.name),
      jobStatus(job),
      jobCompletions(job),
      jobDuration(job, now),
      timestampSince(job.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(job.spec?.selector),
    ],
  };
}

const templateColumns = (selectorDoc: string) => [
  column('Containers', 'string', CONTAINERS_DESCRIPTION, { wide: true }),
  column('Images', 'string', IMAGES_DESCRIPTION, { wide: true }),
  column('Selector', 'string', selectorDoc, { wide: true }),
];

/** Deployments: NAME READY UP-TO-DATE AVAILABLE AGE, wide CONTAINERS IMAGES SELECTOR. */
export const deploymentPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', docs.deploymentStatusUpdatedReplicas),
    column('Available', 'string', docs.deploymentStatusAvailableReplicas),
    ageColumn(),
    ...templateColumns(docs.deploymentSpecSelector),
  ],
  print: printDeployment,
};

/** ReplicaSets: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR. */
export const replicaSetPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', docs.replicaSetSpecReplicas),
    column('Current', 'integer', docs.replicaSetStatusReplicas),
    column('Ready', 'integer', docs.replicaSetStatusReadyReplicas),
    ageColumn(),
    ...templateColumns(docs.replicaSetSpecSelector),
  ],
  print: printReplicaSet,
};

/** Jobs: NAME STATUS COMPLETIONS DURATION AGE, wide CONTAINERS IMAGES SELECTOR. */
export const jobPrinter: ResourcePrinter = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', docs.jobStatusSucceeded),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn(),
    ...templateColumns(docs.jobSpecSelector),
  ],
  print: printJob,
};
