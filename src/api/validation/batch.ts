/**
 * batch/v1 Job and CronJob validation: counts non-negative, selector matching
 * the template, restartPolicy OnFailure or Never, and an immutable selector and
 * template on update; a CronJob's schedule, time zone and concurrency policy.
 */
import { nameIsDNSSubdomain } from '../meta.js';
import type { KubeObject } from '../types.js';
import {
  child,
  immutable,
  invalidValue,
  notSupported,
  required,
  validateNonnegative,
  validatePositive,
  type ErrorList,
} from './field.js';
import { obj, type Obj } from './common.js';
import { validateSelectorAndTemplate } from './apps.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePodTemplateSpec } from './pod.js';
import { isValidTimeZone, parseCronSchedule } from '../cron.js';
import { semanticEqual } from './semantic.js';

const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];

// A CronJob's jobTemplate is a JobSpec without a selector yet: the Job strategy generates it on create.
function validateJobSpec(spec: Obj, path = 'spec', inTemplate = false): ErrorList {
  const errs: ErrorList = [];
  for (const f of ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished'])
    errs.push(...validateNonnegative(spec[f], child(path, f)));
  errs.push(...validatePositive(spec.activeDeadlineSeconds, child(path, 'activeDeadlineSeconds')));
  const mode = spec.completionMode as string | undefined;
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed')
    errs.push(notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed' && (spec.completions === undefined || spec.completions === null))
    errs.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
  if (inTemplate)
    errs.push(
      ...validatePodTemplateSpec(spec.template, child(path, 'template'), { restartPolicies: JOB_RESTART_POLICIES }),
    );
  // The strategy generates the selector before validation unless manualSelector is true.
  else errs.push(...validateSelectorAndTemplate(spec, 'job', JOB_RESTART_POLICIES));
  return errs;
}

/** Validates a Job on create. */
export const validateJob = (job: KubeObject): ErrorList => [
  ...validateObjectMeta(job.metadata, true, nameIsDNSSubdomain),
  ...validateJobSpec(obj(job.spec)),
];

/** Validates a Job update: selector, template and completionMode are immutable. */
export function validateJobUpdate(job: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(job.spec);
  const oldSpec = obj(old.spec);
  const errs = [...validateObjectMetaUpdate(job.metadata, old.metadata), ...validateJobSpec(spec)];
  if (!semanticEqual(spec.selector, oldSpec.selector)) errs.push(immutable('spec.selector', spec.selector));
  if (!semanticEqual(spec.template, oldSpec.template)) errs.push(immutable('spec.template', spec.template));
  if ((spec.completionMode ?? 'NonIndexed') !== (oldSpec.completionMode ?? 'NonIndexed'))
    errs.push(immutable('spec.completionMode', spec.completionMode));
  return errs;
}

// Like upstream's validTimeZoneCharacters: each path segment of an IANA name.
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(tz: unknown, path: string): ErrorList {
  if (tz === undefined || tz === null) return [];
  if (typeof tz !== 'string') return [invalidValue(path, tz, 'must be a string')];
  const zone = tz;
  if (zone === '') return [invalidValue(path, zone, 'timeZone must be nil or non-empty string')];
  const badPart = zone.split('/').some((p) => p === '.' || p === '..' || p.startsWith('-') || !TIME_ZONE_PART.test(p));
  if (badPart)
    return [invalidValue(path, zone, 'Invalid timeZone: must be a valid time zone as defined by the IANA database')];
  if (zone.toLowerCase() === 'local')
    return [
      invalidValue(path, zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'),
    ];
  return isValidTimeZone(zone) ? [] : [invalidValue(path, zone, `unknown time zone ${zone}`)];
}

// Like upstream's validateScheduleFormat: robfig's ParseStandard, and TZ= in the schedule only where it already was.
function validateSchedule(schedule: unknown, timeZone: unknown, allowTZ: boolean): ErrorList {
  const path = 'spec.schedule';
  if (typeof schedule !== 'string' || schedule === '') return [required(path)];
  const errs: ErrorList = [];
  try {
    parseCronSchedule(schedule);
  } catch (e) {
    errs.push(invalidValue(path, schedule, (e as Error).message));
  }
  if (schedule.includes('TZ')) {
    if (!allowTZ)
      errs.push(invalidValue(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    else if (timeZone !== undefined && timeZone !== null)
      errs.push(invalidValue(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  return errs;
}

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];

function validateCronJobSpec(spec: Obj, allowTZ: boolean): ErrorList {
  const errs = validateSchedule(spec.schedule, spec.timeZone, allowTZ);
  errs.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  errs.push(...validateNonnegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  const policy = spec.concurrencyPolicy;
  if (policy === undefined || policy === null || policy === '') errs.push(required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(policy as string))
    errs.push(notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  const jt = obj(spec.jobTemplate);
  errs.push(...validateJobSpec(obj(jt.spec), 'spec.jobTemplate.spec', true));
  for (const f of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit'])
    errs.push(...validateNonnegative(spec[f], `spec.${f}`));
  return errs;
}

// A CronJob's Job names add "-<minutes since epoch>" (11 characters) and must stay DNS-1035 labels.
const CRONJOB_NAME_MAX = 52;

/** Validates a CronJob on create: TZ= or CRON_TZ= in the schedule is refused, as upstream. */
export function validateCronJob(cj: KubeObject): ErrorList {
  const errs = validateObjectMeta(cj.metadata, true, nameIsDNSSubdomain);
  const name = cj.metadata?.name ?? '';
  if (name.length > CRONJOB_NAME_MAX)
    errs.push(invalidValue('metadata.name', name, `must be no more than ${CRONJOB_NAME_MAX} characters`));
  errs.push(...validateCronJobSpec(obj(cj.spec), false));
  return errs;
}

/** Validates a CronJob update: a schedule may keep a TZ= it already had. */
export function validateCronJobUpdate(cj: KubeObject, old: KubeObject): ErrorList {
  const oldSchedule = obj(old.spec).schedule;
  const allowTZ = typeof oldSchedule === 'string' && oldSchedule.includes('TZ');
  return [...validateObjectMetaUpdate(cj.metadata, old.metadata), ...validateCronJobSpec(obj(cj.spec), allowTZ)];
}
