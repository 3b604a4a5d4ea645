/** The Job controller: completions, parallelism, backoffLimit, activeDeadlineSeconds and Indexed completion mode. */
export { JobController, JOB_CONTROLLER, type JobControllerStats } from './job_controller.js';
export { DEFAULT_JOB_OPTIONS, type JobControllerOptions } from './config.js';
export { formatIndexes, parseIndexes, getCompletionIndex } from './indexed.js';
export { remainingBackoffMs } from './backoff.js';
export { JOB_COMPLETION_INDEX } from './constants.js';
