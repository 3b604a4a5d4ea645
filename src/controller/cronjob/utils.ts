/**
 * The CronJob controller's schedule arithmetic and Job construction, like
 * upstream's pkg/controller/cronjob/utils.go: the most recent unmet schedule
 * time (with startingDeadlineSeconds and the "too many missed start times"
 * rule), the requeue delay, Job names in minutes since the epoch, and the Job
 * made from the template. Pure functions over times in ms, for unit tests.
 */
import { parseTimestamp, type CronJob, type CronSchedule, type Job, type ObjectReference } from '../../api/index.js';
import { newControllerRef } from '../controllerutil/index.js';

/** batch/v1 CronJob's apiVersion and kind, stamped on the Jobs' controller references. */
export const KIND_CRONJOB = { apiVersion: 'batch/v1', kind: 'CronJob' } as const;
/** The annotation recording a Job's scheduled time in the CronJob's zone (upstream's CronJobScheduledTimestampAnnotation). */
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** Upstream's nextScheduleDelta: requeue 100 ms past the next schedule time, for clock skew. */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** More missed schedules than this raise the TooManyMissedTimes warning. */
export const MANY_MISSED = 100;

/** How many schedule times went by unmet: none, a few, or many (more than 100). */
export type MissedSchedules = 'none' | 'few' | 'many';

/** What mostRecentScheduleTime finds. */
export interface MostRecent {
  /** The last schedule time, the creation time, or now − startingDeadlineSeconds when later. */
  earliest: number;
  /** The most recent schedule time not after now, if any passed since `earliest`. */
  mostRecent?: number;
  missed: MissedSchedules;
  /** Set when two consecutive schedule times are less than a second apart (an impossible date such as Feb 31). */
  error?: string;
}

/** Upstream's mostRecentScheduleTime, with its rough count of missed schedules between t1 and now. */
export function mostRecentScheduleTime(
  cj: CronJob,
  now: number,
  schedule: CronSchedule,
  includeStartingDeadline: boolean,
): MostRecent {
  let earliest = parseTimestamp(cj.status?.lastScheduleTime) ?? parseTimestamp(cj.metadata?.creationTimestamp) ?? 0;
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadline && typeof deadline === 'number') earliest = Math.max(earliest, now - deadline * 1000);
  const t1 = schedule.next(earliest);
  if (t1 === undefined || now < t1) return { earliest, missed: 'none' };
  const t2 = schedule.next(t1);
  if (t2 === undefined || now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1)
    return { earliest, missed: 'none', error: 'time difference between two schedules is less than 1 second' };
  const elapsed = Math.trunc((now - t1) / 1000);
  const missedCount = Math.trunc(elapsed / between) + 1;
  // Step back one interval from the estimate and let the schedule find the real times, as upstream does.
  let mostRecent: number | undefined;
  const potentialEarliest = t1 + (missedCount - 2) * between * 1000;
  for (let t = schedule.next(potentialEarliest); t !== undefined && t <= now; t = schedule.next(t)) mostRecent = t;
  const missed: MissedSchedules = missedCount > MANY_MISSED ? 'many' : 'few';
  return mostRecent === undefined ? { earliest, missed } : { earliest, mostRecent, missed };
}

/** Upstream's nextScheduleTime: the unmet schedule time to run now, if any (startingDeadlineSeconds applied). */
export function nextScheduleTime(
  cj: CronJob,
  now: number,
  schedule: CronSchedule,
): { time?: number; tooManyMissed: boolean; error?: string } {
  const r = mostRecentScheduleTime(cj, now, schedule, true);
  if (r.mostRecent === undefined || r.mostRecent > now) return { tooManyMissed: false, error: r.error };
  return { time: r.mostRecent, tooManyMissed: r.missed === 'many', error: r.error };
}

/** Upstream's nextScheduleTimeDuration: how long until the schedule's next time after the most recent one, plus 100 ms. */
export function nextScheduleTimeDuration(cj: CronJob, now: number, schedule: CronSchedule): number | undefined {
  const r = mostRecentScheduleTime(cj, now, schedule, false);
  let from: number;
  if (r.error !== undefined) from = now;
  else if (r.mostRecent !== undefined) from = r.mostRecent;
  else from = r.missed === 'none' ? r.earliest : now;
  const next = schedule.next(from);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}

/** A CronJob's Job name for a schedule time: `<cronjob>-<minutes since the epoch>`, as getJobName. */
export function jobNameFor(cj: CronJob, scheduledTime: number): string {
  return `${cj.metadata?.name ?? ''}-${Math.floor(scheduledTime / 60_000)}`;
}

// RFC 3339 with the zone's offset, as Go's time.Format(time.RFC3339) after In(location).
function rfc3339In(t: number, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(t)
      .map((p) => [p.type, p.value]),
  );
  const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const offsetMin = Math.round((Date.parse(`${wall}Z`) - (t - (t % 1000))) / 60_000);
  if (offsetMin === 0) return `${wall}Z`;
  const abs = Math.abs(offsetMin);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${wall}${offsetMin < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** Upstream's getJobFromTemplate2: the template's labels, annotations and spec, the schedule-time name and annotation. */
export function jobFromTemplate(cj: CronJob, scheduledTime: number): Job {
  const tmpl = cj.spec?.jobTemplate;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cj, scheduledTime),
      namespace: cj.metadata?.namespace,
      labels: { ...tmpl?.metadata?.labels },
      annotations: {
        ...tmpl?.metadata?.annotations,
        [CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]: rfc3339In(scheduledTime, cj.spec?.timeZone ?? 'UTC'),
      },
      ownerReferences: [newControllerRef(cj, KIND_CRONJOB)],
    },
    spec: structuredClone(tmpl?.spec ?? {}),
  };
}

/** The Job's finished condition type (Complete or Failed), like getFinishedStatus. */
export function finishedCondition(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? [])
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

/** Oldest first by status.startTime (a Job not started sorts last), then by name: upstream's byJobStartTime. */
export function byJobStartTime(a: Job, b: Job): number {
  const sa = parseTimestamp(a.status?.startTime);
  const sb = parseTimestamp(b.status?.startTime);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  return (sa ?? 0) - (sb ?? 0);
}

/** A reference to a Job for CronJob.status.active, as upstream's getRef. */
export function jobRef(job: Job): ObjectReference {
  return {
    kind: 'Job',
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata?.resourceVersion,
  };
}
