/** The CronJob controller: Jobs on a cron schedule in a time zone, concurrency policy, deadlines, history limits. */
export { CronJobController, CRONJOB_CONTROLLER, DEFAULT_CONCURRENT_CRON_JOB_SYNCS } from './cronjob_controller.js';
export {
  CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION,
  KIND_CRONJOB,
  jobFromTemplate,
  jobNameFor,
  mostRecentScheduleTime,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from './utils.js';
