/**
 * JobController, like kube-controller-manager's pkg/controller/job: runs
 * each Job's pods to `completions` with at most `parallelism` active, in
 * NonIndexed or Indexed completion mode; replaces failed pods after an
 * exponential back-off until `backoffLimit`; enforces
 * `activeDeadlineSeconds`; and sets the Complete or Failed condition (after
 * SuccessCriteriaMet or FailureTarget) with upstream's Events.
 *
 * Unlike upstream, finished pods are counted from the pod cache (with the
 * Job's recorded counts as a floor) instead of through the
 * batch.kubernetes.io/job-tracking finalizer, and orphan pods are not adopted.
 */
import {
  isNotFoundError,
  metaNamespaceKeyFunc,
  RESOURCES,
  splitMetaNamespaceKey,
  unwrapDeleted,
  type Lister,
  type ResourceClient,
} from '../../client/index.js';
import type { ControllerContext } from '../controller_context.js';
import {
  CONTROLLER_UID_INDEX,
  enqueueOnChange,
  PodExpectationsController,
  resolveControllerRef,
  slowStartBatch,
  errMessage,
} from '../controllerutil/index.js';
import { remainingBackoffMs } from './backoff.js';
import { MAX_POD_CREATE_DELETE_PER_SYNC, type JobControllerOptions } from './config.js';
import { formatIndexes, getCompletionIndex, parseIndexes } from './indexed.js';
import { classifyPods, podChanges, wantActive } from './manage.js';
import { podFromTemplate } from './pod_template.js';
import { COND, ensureCondition, hasCondition, isJobFinished } from './status.js';
import { KIND_JOB } from './constants.js';
import { formatTimestamp, parseTimestamp, type Job, type JobStatus, type Pod } from '../../api/index.js';

/** The controller's name for --controllers. */
export const JOB_CONTROLLER = 'job-controller';

/** Counts of the controller's work, for tests and benchmarks. */
export interface JobControllerStats {
  syncs: number;
  podsCreated: number;
  podsDeleted: number;
  statusUpdates: number;
}

/** Runs Jobs to completion. */
export class JobController extends PodExpectationsController {
  readonly stats: JobControllerStats = { syncs: 0, podsCreated: 0, podsDeleted: 0, statusUpdates: 0 };
  protected readonly syncHandler = (key: string): Promise<void> => this.syncJob(key);
  private readonly jobs: ResourceClient<Job>;
  private readonly jobLister: Lister<Job>;

  constructor(
    ctx: ControllerContext,
    private readonly opts: JobControllerOptions = ctx.config.job,
  ) {
    super(JOB_CONTROLLER, ctx, { workers: opts.concurrentJobSyncs });
    this.jobs = ctx.client.resource<Job>(RESOURCES.jobs);
    const jobInformer = ctx.informers.informerFor<Job>(RESOURCES.jobs);
    this.jobLister = jobInformer.lister();
    enqueueOnChange(jobInformer, this.queue, (key) => this.expectations.deleteExpectations(key));
    this.podInformer.addEventHandler({
      onAdd: (p) => {
        const job = resolveControllerRef(this.jobLister, KIND_JOB.kind, p);
        if (job === undefined) return;
        if (p.metadata?.deletionTimestamp !== undefined)
          this.expectations.deletionObservedOf(metaNamespaceKeyFunc(job), metaNamespaceKeyFunc(p));
        else this.expectations.creationObserved(metaNamespaceKeyFunc(job));
        this.queueBatched(job);
      },
      onUpdate: (old, p) => {
        if (old.metadata?.resourceVersion === p.metadata?.resourceVersion) return;
        const job = resolveControllerRef(this.jobLister, KIND_JOB.kind, p);
        if (job === undefined) return;
        if (p.metadata?.deletionTimestamp !== undefined)
          this.expectations.deletionObservedOf(metaNamespaceKeyFunc(job), metaNamespaceKeyFunc(p));
        this.queueBatched(job);
      },
      onDelete: (d) => {
        const p = unwrapDeleted(d);
        const job = resolveControllerRef(this.jobLister, KIND_JOB.kind, p);
        if (job === undefined) return;
        this.expectations.deletionObservedOf(metaNamespaceKeyFunc(job), metaNamespaceKeyFunc(p));
        this.queueBatched(job);
      },
    });
  }

  private queueBatched(job: Job): void {
    this.queue.addAfter(metaNamespaceKeyFunc(job), this.opts.syncJobBatchPeriodMs);
  }

  /** syncJob: counts the Job's pods, decides its outcome, creates or deletes pods, and writes its status. */
  async syncJob(key: string): Promise<void> {
    this.stats.syncs++;
    const { namespace, name } = splitMetaNamespaceKey(key);
    const job = this.jobLister.namespace(namespace).get(name);
    if (job === undefined) {
      this.expectations.deleteExpectations(key);
      return;
    }
    if (isJobFinished(job)) return;
    const now = this.clock.now();
    const satisfied = this.expectations.satisfiedExpectations(key);
    const pods = this.podInformer.indexer.byIndex(CONTROLLER_UID_INDEX, job.metadata?.uid ?? '');
    const { active, terminating, ready } = classifyPods(pods);
    const indexed = job.spec?.completionMode === 'Indexed';
    const completions = job.spec?.completions ?? undefined;
    let completed: Set<number> | undefined;
    let succeeded: number;
    if (indexed) {
      completed = parseIndexes(job.status?.completedIndexes, completions ?? 0);
      for (const p of pods) {
        const i = getCompletionIndex(p);
        if (p.status?.phase === 'Succeeded' && i !== undefined && i < (completions ?? 0)) completed.add(i);
      }
      succeeded = Math.max(job.status?.succeeded ?? 0, completed.size);
    } else succeeded = Math.max(job.status?.succeeded ?? 0, pods.filter((p) => p.status?.phase === 'Succeeded').length);
    const failed = Math.max(job.status?.failed ?? 0, pods.filter((p) => p.status?.phase === 'Failed').length);
    const suspended = job.spec?.suspend === true;
    let conditions = job.status?.conditions ?? [];
    let startTime = job.status?.startTime;
    if (!suspended && startTime === undefined) startTime = formatTimestamp(now);

    // The outcome: a failure target, success, or neither yet.
    const failure = this.failureOf(job, failed, startTime, now);
    const complete =
      failure === undefined &&
      (hasCondition(job, COND.successCriteriaMet) || isComplete(job, succeeded, completed, active.length));

    let created = 0;
    let deleted = 0;
    if (satisfied) {
      if (failure !== undefined || complete || suspended) deleted = await this.deletePods(job, key, active);
      else {
        const changes = podChanges(
          job,
          active,
          terminating.length,
          wantActive(job, succeeded),
          completed,
          MAX_POD_CREATE_DELETE_PER_SYNC,
        );
        if (changes.deletes.length > 0) deleted = await this.deletePods(job, key, changes.deletes);
        else if (changes.creates.length > 0) {
          const wait = remainingBackoffMs(pods, now, this.opts.podFailureBackoffMs, this.opts.maxPodFailureBackoffMs);
          if (wait > 0) this.queue.addAfter(key, wait);
          else created = await this.createPods(job, key, changes.creates);
        }
      }
    }

    const remaining = active.length + terminating.length;
    if (failure !== undefined) {
      conditions = ensureCondition(conditions, COND.failureTarget, 'True', failure.reason, failure.message, now);
      if (remaining === 0) {
        conditions = ensureCondition(conditions, COND.failed, 'True', failure.reason, failure.message, now);
        this.recorder.event({ ...job, ...KIND_JOB }, 'Warning', failure.reason, failure.message);
      }
    } else if (complete) {
      conditions = ensureCondition(
        conditions,
        COND.successCriteriaMet,
        'True',
        'CompletionsReached',
        'Reached expected number of succeeded pods',
        now,
      );
      if (remaining === 0) {
        conditions = ensureCondition(
          conditions,
          COND.complete,
          'True',
          'CompletionsReached',
          'Reached expected number of succeeded pods',
          now,
        );
        this.recorder.event({ ...job, ...KIND_JOB }, 'Normal', 'Completed', 'Job completed');
      }
    } else if (suspended) {
      if (!hasCondition(job, COND.suspended))
        this.recorder.event({ ...job, ...KIND_JOB }, 'Normal', 'Suspended', 'Job suspended');
      conditions = ensureCondition(conditions, COND.suspended, 'True', 'JobSuspended', 'Job suspended', now);
    } else if (hasCondition(job, COND.suspended)) {
      this.recorder.event({ ...job, ...KIND_JOB }, 'Normal', 'Resumed', 'Job resumed');
      conditions = ensureCondition(conditions, COND.suspended, 'False', 'JobResumed', 'Job resumed', now);
      startTime = formatTimestamp(now);
    }

    const status: JobStatus = {
      ...job.status,
      conditions,
      active: active.length + created - deleted,
      ready,
      terminating: terminating.length + deleted,
      succeeded,
      failed,
      uncountedTerminatedPods: {},
    };
    if (startTime !== undefined) status.startTime = startTime;
    if (indexed) status.completedIndexes = formatIndexes(completed ?? []);
    if (conditions.some((c) => c.type === COND.complete && c.status === 'True'))
      status.completionTime ??= formatTimestamp(now);
    if (JSON.stringify(status) !== JSON.stringify(job.status)) {
      try {
        await this.jobs.updateStatus({ ...job, status }, { namespace });
        this.stats.statusUpdates++;
      } catch (err) {
        if (isNotFoundError(err)) return;
        throw err;
      }
    }
    // Wake up for the deadline even when no pod changes.
    const deadline = job.spec?.activeDeadlineSeconds;
    if (failure === undefined && !complete && deadline != null && startTime !== undefined) {
      this.queue.addAfter(key, Math.max(0, (parseTimestamp(startTime) ?? now) + deadline * 1000 - now) + 1);
    }
  }

  /** BackoffLimitExceeded or DeadlineExceeded, or the failure already recorded as FailureTarget. */
  private failureOf(
    job: Job,
    failed: number,
    startTime: string | undefined,
    now: number,
  ): { reason: string; message: string } | undefined {
    const target = job.status?.conditions?.find((c) => c.type === COND.failureTarget && c.status === 'True');
    if (target !== undefined) return { reason: target.reason ?? 'BackoffLimitExceeded', message: target.message ?? '' };
    if (failed > (job.spec?.backoffLimit ?? 6))
      return { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    const deadline = job.spec?.activeDeadlineSeconds;
    const start = parseTimestamp(startTime);
    if (deadline != null && start !== undefined && now - start >= deadline * 1000)
      return { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    return undefined;
  }

  private async createPods(job: Job, key: string, indexes: (number | undefined)[]): Promise<number> {
    this.expectations.expectCreations(key, indexes.length);
    let next = 0;
    const { successes, error } = await slowStartBatch(indexes.length, 1, async () => {
      const pod = podFromTemplate(job, indexes[next++]);
      try {
        const created = await this.podClient.create(pod, { namespace: job.metadata!.namespace! });
        this.stats.podsCreated++;
        this.recorder.event(
          { ...job, ...KIND_JOB },
          'Normal',
          'SuccessfulCreate',
          `Created pod: ${created.metadata?.name ?? ''}`,
        );
      } catch (err) {
        this.recorder.event({ ...job, ...KIND_JOB }, 'Warning', 'FailedCreate', `Error creating: ${errMessage(err)}`);
        throw err;
      }
    });
    // Creates never attempted or rejected will never be observed.
    for (let i = successes; i < indexes.length; i++) this.expectations.creationObserved(key);
    if (error !== undefined) throw error instanceof Error ? error : new Error(errMessage(error));
    return successes;
  }

  private async deletePods(job: Job, key: string, pods: readonly Pod[]): Promise<number> {
    if (pods.length === 0) return 0;
    this.expectations.expectDeletionsOf(key, pods.map(metaNamespaceKeyFunc));
    let deleted = 0;
    let firstErr: unknown;
    await Promise.all(
      pods.map(async (p) => {
        try {
          await this.podClient.delete(p.metadata!.name!, {
            namespace: p.metadata!.namespace!,
            preconditions: { uid: p.metadata?.uid },
          });
          deleted++;
          this.stats.podsDeleted++;
          this.recorder.event(
            { ...job, ...KIND_JOB },
            'Normal',
            'SuccessfulDelete',
            `Deleted pod: ${p.metadata!.name!}`,
          );
        } catch (err) {
          if (isNotFoundError(err)) return;
          this.expectations.deletionObservedOf(key, metaNamespaceKeyFunc(p));
          this.recorder.event({ ...job, ...KIND_JOB }, 'Warning', 'FailedDelete', `Error deleting: ${errMessage(err)}`);
          firstErr ??= err;
        }
      }),
    );
    if (firstErr !== undefined) throw firstErr instanceof Error ? firstErr : new Error(errMessage(firstErr));
    return deleted;
  }
}

/** Whether the Job reached its completions (without completions: a pod succeeded and none is running). */
function isComplete(job: Job, succeeded: number, completed: ReadonlySet<number> | undefined, active: number): boolean {
  const completions = job.spec?.completions;
  if (completions === undefined || completions === null) return succeeded > 0 && active === 0;
  if (completed !== undefined) return completed.size >= completions;
  return succeeded >= completions;
}
