/**
 * CronJobController, like kube-controller-manager's pkg/controller/cronjob
 * (ControllerV2): each CronJob is synced when it or one of its Jobs changes,
 * and requeued for its next schedule time on the injected clock. A sync
 * reconciles status.active with the Jobs that exist, creates the Job for the
 * most recent unmet schedule time (in the CronJob's time zone, within
 * startingDeadlineSeconds, per the concurrency policy, unless suspended),
 * and deletes finished Jobs past the history limits.
 */
import {
  isAlreadyExistsError,
  isNotFoundError,
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  unwrapDeleted,
  type EventRecorder,
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { Clock } from '../../clock/index.js';
import type { ControllerContext } from '../controller_context.js';
import { getControllerOf, QueueController, resolveControllerRef, errMessage } from '../controllerutil/index.js';
import {
  formatTimestamp,
  isValidTimeZone,
  parseCronSchedule,
  parseTimestamp,
  type CronJob,
  type CronSchedule,
  type Job,
} from '../../api/index.js';
import {
  byJobStartTime,
  finishedCondition,
  jobFromTemplate,
  jobNameFor,
  jobRef,
  KIND_CRONJOB,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from './utils.js';

/** The controller's name for --controllers. */
export const CRONJOB_CONTROLLER = 'cronjob-controller';
/** --concurrent-cron-job-syncs' default. */
export const DEFAULT_CONCURRENT_CRON_JOB_SYNCS = 5;

/** The outcome of syncCronJob: whether status changed, and when to look again. */
interface SyncResult {
  requeueAfter?: number;
  updateStatus: boolean;
}

/** Runs Jobs on a cron schedule. */
export class CronJobController extends QueueController {
  protected readonly syncHandler = (key: string): Promise<void> => this.sync(key);
  private readonly cronJobs: ResourceClient<CronJob>;
  private readonly jobs: ResourceClient<Job>;
  private readonly cronJobLister: Lister<CronJob>;
  private readonly jobLister: Lister<Job>;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;

  constructor(ctx: ControllerContext, workerCount = DEFAULT_CONCURRENT_CRON_JOB_SYNCS) {
    super(CRONJOB_CONTROLLER, ctx, { workers: workerCount });
    this.clock = ctx.clock;
    this.cronJobs = ctx.client.resource<CronJob>(RESOURCES.cronjobs);
    this.jobs = ctx.client.resource<Job>(RESOURCES.jobs);
    this.recorder = ctx.events.newRecorder({ component: CRONJOB_CONTROLLER });
    const cronJobInformer = ctx.informers.informerFor<CronJob>(RESOURCES.cronjobs);
    this.cronJobLister = cronJobInformer.lister();
    const jobInformer = ctx.informers.informerFor<Job>(RESOURCES.jobs);
    this.jobLister = jobInformer.lister();
    cronJobInformer.addEventHandler({
      onAdd: (cj) => this.queue.add(metaNamespaceKeyFunc(cj)),
      onUpdate: (_old, cj) => this.queue.add(metaNamespaceKeyFunc(cj)),
      onDelete: () => undefined,
    });
    const enqueueOwner = (job: Job): void => {
      const cj = resolveControllerRef(this.cronJobLister, KIND_CRONJOB.kind, job);
      if (cj !== undefined) this.queue.add(metaNamespaceKeyFunc(cj));
    };
    jobInformer.addEventHandler({
      onAdd: enqueueOwner,
      onUpdate: (old, job) => {
        if (old.metadata?.resourceVersion !== job.metadata?.resourceVersion) enqueueOwner(job);
      },
      onDelete: (d) => enqueueOwner(unwrapDeleted(d)),
    });
  }

  /** sync: one CronJob's Jobs reconciled, its next Job created, old Jobs cleaned up, its status written. */
  async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.cronJobLister.namespace(namespace).get(name);
    if (cached === undefined) return;
    const uid = cached.metadata?.uid;
    const jobs = this.jobLister
      .namespace(namespace)
      .list()
      .filter((j) => getControllerOf(j)?.uid === uid);
    const cj = structuredClone(cached);
    const result = await this.syncCronJob(cj, jobs);
    if (await this.cleanupFinishedJobs(cj, jobs)) result.updateStatus = true;
    if (result.updateStatus) {
      try {
        await this.cronJobs.updateStatus(cj);
      } catch (e) {
        if (isNotFoundError(e)) return;
        throw e;
      }
    }
    if (result.requeueAfter !== undefined) this.queue.addAfter(key, Math.max(0, result.requeueAfter));
  }

  private schedule(cj: CronJob): CronSchedule | undefined {
    const tz = cj.spec?.timeZone;
    if (tz !== undefined && !isValidTimeZone(tz)) {
      this.recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${tz}": unknown time zone ${tz}`);
      return undefined;
    }
    try {
      return parseCronSchedule(cj.spec?.schedule ?? '', tz ?? 'UTC');
    } catch (e) {
      this.recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${errMessage(e)}`);
      return undefined;
    }
  }

  /** Upstream's syncCronJob: mutates `cj`'s status and creates or deletes Jobs. */
  private async syncCronJob(cj: CronJob, jobs: Job[]): Promise<SyncResult> {
    const now = this.clock.now();
    let status = (cj.status ??= {});
    let updateStatus = false;
    const children = new Set<string>();
    for (const j of jobs) {
      const juid = j.metadata?.uid ?? '';
      children.add(juid);
      const active = (status.active ?? []).some((r) => r.uid === juid);
      const finished = finishedCondition(j);
      if (!active && finished === undefined) {
        // The cached CronJob may predate the status write that recorded this Job: re-read it, as upstream does.
        const fresh = await this.cronJobs.get(cj.metadata?.name ?? '', { namespace: cj.metadata?.namespace });
        if (fresh.status?.active?.some((r) => r.uid === juid)) {
          cj.metadata = fresh.metadata;
          status = cj.status = fresh.status;
          continue;
        }
        this.recorder.event(cj, 'Warning', 'UnexpectedJob', 'Saw a job that the controller did not create or forgot');
      } else if (active && finished !== undefined) {
        status.active = (status.active ?? []).filter((r) => r.uid !== juid);
        this.recorder.event(
          cj,
          'Normal',
          'SawCompletedJob',
          `Saw completed job: ${j.metadata?.name}, condition: ${finished}`,
        );
        updateStatus = true;
      }
      if (finished === 'Complete') {
        const done = parseTimestamp(j.status?.completionTime);
        const last = parseTimestamp(status.lastSuccessfulTime);
        if (done !== undefined && (last === undefined || done > last)) {
          status.lastSuccessfulTime = j.status!.completionTime;
          updateStatus = true;
        }
      }
    }
    // Forget active references to Jobs that no longer exist (read from the server, as upstream).
    for (const ref of [...(status.active ?? [])]) {
      if (children.has(ref.uid ?? '')) continue;
      try {
        await this.jobs.get(ref.name ?? '', { namespace: ref.namespace });
      } catch (e) {
        if (!isNotFoundError(e)) throw e;
        this.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
        updateStatus = true;
      }
    }
    if (cj.metadata?.deletionTimestamp !== undefined) return { updateStatus };
    const sched = this.schedule(cj);
    if (sched === undefined || cj.spec?.suspend === true) return { updateStatus };

    const next = nextScheduleTime(cj, now, sched);
    if (next.tooManyMissed) {
      this.recorder.event(
        cj,
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
    }
    if (next.error !== undefined) {
      this.recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${cj.spec?.schedule} : ${next.error}`);
      return { updateStatus };
    }
    const requeue = (): SyncResult => ({ requeueAfter: nextScheduleTimeDuration(cj, now, sched), updateStatus });
    const scheduled = next.time;
    if (scheduled === undefined) return requeue();
    const deadline = cj.spec?.startingDeadlineSeconds;
    if (typeof deadline === 'number' && scheduled + deadline * 1000 < now) {
      this.recorder.event(
        cj,
        'Warning',
        'MissSchedule',
        `Missed scheduled time to start a job: ${formatTimestamp(scheduled)}`,
      );
      return requeue();
    }
    const name = jobNameFor(cj, scheduled);
    const already = (status.active ?? []).some((r) => r.name === name && r.namespace === cj.metadata?.namespace);
    if (already || parseTimestamp(status.lastScheduleTime) === scheduled) return requeue();
    if (cj.spec?.concurrencyPolicy === 'Forbid' && (status.active ?? []).length > 0) return requeue();
    if (cj.spec?.concurrencyPolicy === 'Replace') {
      for (const ref of [...(status.active ?? [])]) {
        await this.deleteJob(cj, ref.name ?? '');
        status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
        updateStatus = true;
      }
    }
    let created: Job;
    try {
      created = await this.jobs.create(jobFromTemplate(cj, scheduled));
      this.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name}`);
    } catch (e) {
      if (!isAlreadyExistsError(e)) {
        this.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${errMessage(e)}`);
        throw e;
      }
      // Created by an earlier sync whose status write was lost: adopt it only if it is ours.
      created = await this.jobs.get(name, { namespace: cj.metadata?.namespace });
      if (getControllerOf(created)?.uid !== cj.metadata?.uid) return requeue();
      if ((status.active ?? []).some((r) => r.uid === created.metadata?.uid)) return requeue();
    }
    status.active = [...(status.active ?? []), jobRef(created)];
    status.lastScheduleTime = formatTimestamp(scheduled);
    return { requeueAfter: nextScheduleTimeDuration(cj, now, sched), updateStatus: true };
  }

  // Upstream's deleteJob: background propagation, so the Job's pods go too.
  private async deleteJob(cj: CronJob, name: string): Promise<void> {
    try {
      await this.jobs.delete(name, { namespace: cj.metadata?.namespace, propagationPolicy: 'Background' });
      this.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
    } catch (e) {
      if (isNotFoundError(e)) return;
      this.recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errMessage(e)}`);
      throw e;
    }
  }

  /** Upstream's cleanupFinishedJobs: the oldest finished Jobs past each history limit are deleted. */
  private async cleanupFinishedJobs(cj: CronJob, jobs: Job[]): Promise<boolean> {
    const successLimit = cj.spec?.successfulJobsHistoryLimit;
    const failedLimit = cj.spec?.failedJobsHistoryLimit;
    if (cj.metadata?.deletionTimestamp !== undefined) return false;
    if (successLimit === undefined && failedLimit === undefined) return false;
    let updateStatus = false;
    for (const [type, limit] of [
      ['Complete', successLimit],
      ['Failed', failedLimit],
    ] as const) {
      if (limit === undefined) continue;
      const finished = jobs.filter((j) => finishedCondition(j) === type).sort(byJobStartTime);
      for (const j of finished.slice(0, Math.max(0, finished.length - limit))) {
        await this.deleteJob(cj, j.metadata?.name ?? '');
        if ((cj.status?.active ?? []).some((r) => r.uid === j.metadata?.uid)) {
          cj.status!.active = cj.status!.active!.filter((r) => r.uid !== j.metadata?.uid);
          updateStatus = true;
        }
      }
    }
    return updateStatus;
  }
}
