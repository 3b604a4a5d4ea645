/** The Job controller's constants; the batch/v1 Job type is src/api's. */

/** The Job's apiVersion and kind, for owner references and Events. */
export const KIND_JOB = { apiVersion: 'batch/v1', kind: 'Job' } as const;
/** The completion index annotation and label of an Indexed Job's pods. */
export const JOB_COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
/** The environment variable carrying the index into containers. */
export const JOB_COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
