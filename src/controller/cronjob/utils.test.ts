import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCronSchedule, type CronJob } from '../../api/index.js';
import {
  jobFromTemplate,
  jobNameFor,
  mostRecentScheduleTime,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from './utils.js';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const MIN = 60_000;
const cronJob = (spec: Partial<NonNullable<CronJob['spec']>> = {}, status: CronJob['status'] = {}): CronJob => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'x', namespace: 'ns', uid: 'u1', creationTimestamp: new Date(T0).toISOString() },
  spec: { schedule: '*/1 * * * *', jobTemplate: { spec: {} }, ...spec },
  status,
});
const every = parseCronSchedule('*/1 * * * *');

test('no schedule time has passed since creation: nothing to run, requeue at the next minute + 100 ms', () => {
  const cj = cronJob();
  assert.deepEqual(nextScheduleTime(cj, T0 + 30_000, every), { tooManyMissed: false, error: undefined });
  assert.equal(nextScheduleTimeDuration(cj, T0 + 30_000, every), 30_000 + 100);
});

test('the most recent unmet time is run; after it is recorded, the next minute is awaited', () => {
  const cj = cronJob();
  assert.equal(nextScheduleTime(cj, T0 + MIN + 5_000, every).time, T0 + MIN);
  // Three minutes missed: only the most recent one runs (no backfill), as upstream's v2 controller.
  assert.equal(nextScheduleTime(cj, T0 + 3 * MIN + 5_000, every).time, T0 + 3 * MIN);
  const recorded = cronJob({}, { lastScheduleTime: new Date(T0 + 3 * MIN).toISOString() });
  assert.equal(nextScheduleTime(recorded, T0 + 3 * MIN + 5_000, every).time, undefined);
  assert.equal(nextScheduleTimeDuration(recorded, T0 + 3 * MIN + 5_000, every), 55_000 + 100);
});

test('more than 100 missed start times are flagged; startingDeadlineSeconds bounds how far back the search looks', () => {
  const now = T0 + 200 * MIN + 1_000;
  const r = mostRecentScheduleTime(cronJob(), now, every, true);
  assert.equal(r.missed, 'many');
  assert.equal(r.mostRecent, T0 + 200 * MIN);
  assert.equal(nextScheduleTime(cronJob(), now, every).tooManyMissed, true);
  const bounded = cronJob({ startingDeadlineSeconds: 120 });
  const b = nextScheduleTime(bounded, now, every);
  assert.equal(b.tooManyMissed, false);
  assert.equal(b.time, T0 + 200 * MIN);
});

test('a schedule with no activation yields no time and no error; the requeue is undefined', () => {
  const never = parseCronSchedule('0 0 31 2 *');
  assert.equal(nextScheduleTime(cronJob(), T0 + 10 * MIN, never).time, undefined);
  assert.equal(nextScheduleTimeDuration(cronJob(), T0 + 10 * MIN, never), undefined);
});

test('schedule times follow the CronJob time zone', () => {
  const nine = parseCronSchedule('0 9 * * *', 'Asia/Tokyo'); // 00:00Z
  const cj = cronJob({ schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' });
  assert.equal(nextScheduleTime(cj, Date.parse('2026-01-02T00:00:30Z'), nine).time, Date.parse('2026-01-02T00:00:00Z'));
});

test('Jobs are named <cronjob>-<minutes since epoch>, owned by the CronJob, with the template and scheduled-time annotation', () => {
  const cj = cronJob({
    timeZone: 'Asia/Tokyo',
    jobTemplate: { metadata: { labels: { a: 'b' }, annotations: { c: 'd' } }, spec: { backoffLimit: 2 } },
  });
  const job = jobFromTemplate(cj, T0 + MIN);
  assert.equal(jobNameFor(cj, T0 + MIN), `x-${(T0 + MIN) / MIN}`);
  assert.equal(job.metadata?.name, `x-${(T0 + MIN) / MIN}`);
  assert.deepEqual(job.metadata?.labels, { a: 'b' });
  assert.equal(job.metadata?.annotations?.c, 'd');
  assert.equal(
    job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'],
    '2026-01-01T19:01:00+09:00',
  );
  assert.deepEqual(job.metadata?.ownerReferences, [
    { apiVersion: 'batch/v1', kind: 'CronJob', name: 'x', uid: 'u1', controller: true, blockOwnerDeletion: true },
  ]);
  assert.equal(job.spec?.backoffLimit, 2);
});
