/** The CronJobs' Table columns, as upstream's printCronJob: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES SELECTOR. */
import type { CronJob } from '../../../api/index.js';
import {
  column,
  docs,
  str,
  templatedWorkloadPrinter,
  timestampSince,
  type ResourcePrinter,
} from '../printers/index.js';

// Like upstream's printBoolPtr.
const boolPtr = (b: boolean | undefined): string => (b === undefined ? '<unset>' : b ? 'True' : 'False');

/** CronJobs, as upstream's printCronJob. */
export const cronJobTable: ResourcePrinter = templatedWorkloadPrinter<CronJob>({
  columns: [
    column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    column(
      'Timezone',
      'string',
      'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.',
    ),
    column(
      'Suspend',
      'boolean',
      'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
    ),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
  ],
  selectorDoc: docs.jobSpecSelector,
  cells: (cj, now) => {
    const last = cj.status?.lastScheduleTime;
    return [
      str(cj.spec?.schedule),
      cj.spec?.timeZone ?? '<none>',
      boolPtr(cj.spec?.suspend),
      cj.status?.active?.length ?? 0,
      last ? timestampSince(last, now) : '<none>',
    ];
  },
  templateSpec: (cj) => cj.spec?.jobTemplate?.spec,
});
